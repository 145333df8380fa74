"""Test fixture of arena-sandbox's lean-install field (see tests/test_lean_install.py)."""

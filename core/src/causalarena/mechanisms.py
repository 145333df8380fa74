"""Placeholder: filled in by the synthetic-family work (issue 3)."""

"""Fixture plugin for arena-sandbox's tests (never published)."""

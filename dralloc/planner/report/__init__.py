"""Answers as tables, YAML and JSON, and as pictures (PNG)."""

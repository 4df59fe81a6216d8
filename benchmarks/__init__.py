"""Benchmarks against the budgets of issue 6, each beside bare Textual: ``python -m benchmarks``."""

"""Benchmarks that measure Trove on the shared evaluation data (`../shared/eval`)."""

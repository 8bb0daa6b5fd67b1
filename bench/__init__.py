"""Benchmarks: run them as scripts (see bench/README.md); never part of the test suite."""

"""Benchmarks: each module compares GraphForge with a named peer on the same data, as a ratio."""

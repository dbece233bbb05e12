"""Benchmarks: each module compares GraphForge with a named peer on the same data, as a ratio."""

from __future__ import annotations

from graphforge.errors import GraphforgeError


class BenchCheckError(GraphforgeError):
    """A benchmark's own check failed: two implementations disagree, or a timed run did not do its work."""


def check(condition: object, message: str) -> None:
    """Raise :class:`BenchCheckError` with ``message`` unless ``condition`` holds (even under ``-O``)."""
    if not condition:
        raise BenchCheckError(message)

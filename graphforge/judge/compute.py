"""The computations a criterion may name, recomputed from the values of its anchors (in anchor order)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from math import prod


def _difference(v: Sequence[float]) -> float:
    return v[0] - sum(v[1:])


def _ratio(v: Sequence[float]) -> float:
    return v[0] / v[1]


def _percent_change(v: Sequence[float]) -> float:
    return (v[1] - v[0]) / v[0] * 100.0


def _share_percent(v: Sequence[float]) -> float:
    return v[0] / v[1] * 100.0


# name -> (minimum number of anchors, function). Anchor order is the criterion's `anchors` order.
COMPUTATIONS: dict[str, tuple[int, Callable[[Sequence[float]], float]]] = {
    "copy": (1, lambda v: v[0]),
    "sum": (1, lambda v: float(sum(v))),
    "difference": (2, _difference),
    "ratio": (2, _ratio),
    "product": (2, lambda v: float(prod(v))),
    "mean": (1, lambda v: sum(v) / len(v)),
    "min": (1, min),
    "max": (1, max),
    "percent_change": (2, _percent_change),
    "share_percent": (2, _share_percent),
}
ALIASES = {"total": "sum", "subtract": "difference", "variance": "difference", "divide": "ratio",
           "average": "mean", "pct_change": "percent_change", "growth": "percent_change",
           "share": "share_percent", "lookup": "copy", "value": "copy"}
PERCENT_COMPUTATIONS = {"percent_change", "share_percent"}


def canonical(name: str | None, n_anchors: int) -> str | None:
    """The canonical computation name; None (no computation) means "copy" for a single anchor."""
    if not name:
        return "copy" if n_anchors == 1 else None
    key = name.strip().lower().replace("-", "_").replace(" ", "_")
    key = ALIASES.get(key, key)
    return key if key in COMPUTATIONS else None


def compute(name: str | None, values: Sequence[float]) -> float | None:
    """Apply a named computation; None when unknown, under-supplied or undefined (division by zero)."""
    key = canonical(name, len(values))
    if key is None:
        return None
    need, fn = COMPUTATIONS[key]
    if len(values) < need:
        return None
    try:
        return float(fn(values))
    except (ZeroDivisionError, ValueError):
        return None

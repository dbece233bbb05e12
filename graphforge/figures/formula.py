"""The computations a criterion may name, recomputed from the values of its anchors (in anchor order).

The package's one computation grammar and evaluator (compiler, spec checks, judge and oracle all use it):
``<op>[:<n>][/<divisor>]``;
``sum:3/1000`` adds the first three anchors and divides by 1000 ("in thousands"). Ops: copy, sum,
difference (a0 - a1 - ...), change ((a0 - a1) / a1, a fraction), ratio, product, mean, min, max,
percent_change ((a1 - a0) / a0 * 100), share_percent (a0 / a1 * 100).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from math import prod


def _difference(v: Sequence[float]) -> float:
    return v[0] - sum(v[1:])


# name -> (minimum number of anchors, function).
COMPUTATIONS: dict[str, tuple[int, Callable[[Sequence[float]], float]]] = {
    "copy": (1, lambda v: v[0]),
    "sum": (1, lambda v: float(sum(v))),
    "difference": (2, _difference),
    "change": (2, lambda v: (v[0] - v[1]) / v[1]),
    "ratio": (2, lambda v: v[0] / v[1]),
    "product": (2, lambda v: float(prod(v))),
    "mean": (1, lambda v: sum(v) / len(v)),
    "min": (1, min),
    "max": (1, max),
    "percent_change": (2, lambda v: (v[1] - v[0]) / v[0] * 100.0),
    "share_percent": (2, lambda v: v[0] / v[1] * 100.0),
}
ALIASES = {"total": "sum", "subtract": "difference", "variance": "difference", "divide": "ratio",
           "average": "mean", "pct_change": "percent_change", "growth": "percent_change",
           "share": "share_percent", "lookup": "copy", "value": "copy"}
PERCENT_COMPUTATIONS = {"percent_change", "share_percent", "change"}
_GRAMMAR_RE = re.compile(r"^([a-z_]+)(?::(\d+))?(?:/([0-9.e+]+))?$")


@dataclass(frozen=True)
class Computation:
    op: str
    first: int | None = None  # use only the first n anchors
    divisor: float = 1.0


def parse_computation(name: str | None, n_anchors: int) -> Computation | None:
    """Parse a computation; None (no computation) means "copy" for a single anchor; unknown gives None."""
    if not name:
        return Computation("copy") if n_anchors == 1 else None
    text = name.strip().lower().replace("-", "_").replace(" ", "_")
    m = _GRAMMAR_RE.match(text)
    if m is None:
        return None
    op = ALIASES.get(m.group(1), m.group(1))
    if op not in COMPUTATIONS:
        return None
    try:
        divisor = float(m.group(3)) if m.group(3) else 1.0
    except ValueError:
        return None
    return Computation(op, int(m.group(2)) if m.group(2) else None, divisor or 1.0)


def canonical(name: str | None, n_anchors: int) -> str | None:
    parsed = parse_computation(name, n_anchors)
    return parsed.op if parsed else None


def compute(name: str | None, values: Sequence[float]) -> float | None:
    """Apply a computation; None when unknown, under-supplied or undefined (division by zero)."""
    parsed = parse_computation(name, len(values))
    if parsed is None:
        return None
    used = list(values[: parsed.first]) if parsed.first else list(values)
    need, fn = COMPUTATIONS[parsed.op]
    if len(used) < need:
        return None
    try:
        return float(fn(used)) / parsed.divisor
    except (ZeroDivisionError, ValueError):
        return None

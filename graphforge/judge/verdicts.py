"""What every verifier returns and the figures they recompute: ``Verdict``, ``recover``, ``expected_value``.

The lowest layer of the judge's verifiers: ``items``, ``item_sources``, ``standing`` and ``verifiers`` import
from here, never the other way round.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from graphforge.figures.formula import PERCENT_COMPUTATIONS, canonical, compute
from graphforge.figures.numbers import matches_value, parse_number
from graphforge.judge.regions import Footprint
from graphforge.judge.view import Anchor
from graphforge.models.spec import CriterionSpec

DETERMINISTIC = "deterministic"


@dataclass(frozen=True)
class Verdict:
    score: float
    evidence: str
    footprint: Footprint = field(default_factory=frozenset)
    verifier: str = DETERMINISTIC


@dataclass(frozen=True)
class Expected:
    value: float | None
    inputs: tuple[float | None, ...]
    note: str


def recover(anchor: Anchor) -> float | None:
    """The anchor's number re-parsed from its span text; None when the value text is not in the span."""
    value_text = anchor.value.strip()
    if not value_text:
        return None
    span = re.sub(r"\s+", " ", anchor.span_text)
    if value_text not in span and re.sub(r"\s+", " ", value_text) not in span:
        return None
    number = parse_number(value_text)
    return None if number is None else number * (anchor.scale or 1.0)


def expected_value(criterion: CriterionSpec, anchors: list[Anchor]) -> Expected:
    """Recompute the expected value from the anchors; fall back to the spec's value and say why."""
    inputs = tuple(recover(a) for a in anchors)
    missing = [a.fact_id for a, v in zip(anchors, inputs, strict=True) if v is None]
    name = canonical(criterion.computation, len(anchors))
    if anchors and not missing and name is not None:
        value = compute(criterion.computation, [v for v in inputs if v is not None])
        if value is not None:
            shown = [fmt_value(v) for v in inputs if v is not None]
            note = f"{criterion.computation or name} of anchored span values {shown}"
            if criterion.expected_value is not None and not matches_value(value, criterion.expected_value,
                                                                          criterion.tolerance):
                note += f" (spec states {fmt_value(criterion.expected_value)}; the anchored spans win)"
            return Expected(value, inputs, note)
    why = ("no anchors" if not anchors else f"anchor values not found in their spans: {missing}" if missing
           else f"unknown computation {criterion.computation!r}")
    if criterion.expected_value is not None:
        return Expected(criterion.expected_value, inputs, f"spec's expected value ({why})")
    return Expected(None, inputs, why)


def fmt_value(value: float) -> str:
    return f"{value:,.6g}" if abs(value) < 1e6 else f"{value:,.2f}"


def is_percent(criterion: CriterionSpec, anchors: list[Anchor]) -> bool:
    name = canonical(criterion.computation, len(anchors))
    return name in PERCENT_COMPUTATIONS or any((a.unit or "").strip() == "%" or a.value.strip().endswith("%")
                                               for a in anchors)

"""The oracle's answers: each value criterion's inputs re-read from its anchored spans, and the result."""

from __future__ import annotations

from dataclasses import dataclass

from graphforge.figures.formula import canonical, compute
from graphforge.figures.numbers import parse_number
from graphforge.judge.verdicts import recover
from graphforge.judge.view import Anchor, JudgeView
from graphforge.models.spec import CriterionKind, CriterionSpec, Polarity


@dataclass
class Input:
    label: str
    value: float
    path: str
    locator: str
    fact_id: str = ""


@dataclass
class Answer:
    criterion: CriterionSpec
    computation: str  # canonical name
    inputs: list[Input]
    value: float
    hard_coded: bool = False  # an injected error writes a constant instead of a formula
    spec_computation: str | None = None  # the computation as the spec writes it ("sum:3/1000")


def anchor_number(anchor: Anchor) -> float | None:
    """The anchor's number as the file shows it (re-read from the span), else the extracted value."""
    got = recover(anchor)
    if got is None:
        parsed = parse_number(anchor.value)
        got = parsed * anchor.scale if parsed is not None else None
    return got if got is not None else anchor.value_num


def input_of(anchor: Anchor, value: float | None = None) -> Input:
    label = (
        " ".join(t for t in (anchor.metric, anchor.period) if t) or anchor.statement[:60] or anchor.fact_id
    )
    number = anchor_number(anchor) if value is None else value
    return Input(label, float(number or 0.0), anchor.path or "", anchor.locator, anchor.fact_id)


def solve(view: JudgeView) -> list[Answer]:
    """An answer for every positive value criterion whose computation the oracle can carry out."""
    answers: list[Answer] = []
    for criterion in view.spec.criteria:
        if criterion.polarity is not Polarity.POSITIVE or criterion.kind is not CriterionKind.VALUE:
            continue
        anchors = view.anchors_of(criterion)
        inputs = [input_of(a) for a in anchors]
        name = canonical(criterion.computation, len(anchors))
        value = compute(criterion.computation, [i.value for i in inputs]) if name else None
        if name is None or value is None:
            if criterion.expected_value is None:
                continue
            # An unknown computation: the oracle writes the spec's figure as a constant (and says so).
            name, value, inputs = "constant", criterion.expected_value, inputs
        answers.append(Answer(criterion, name, inputs, value, spec_computation=criterion.computation))
    return answers

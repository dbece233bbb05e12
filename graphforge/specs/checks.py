"""Deterministic spec checks: recompute a VALUE criterion from its anchors, find leaks in the agent's view."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from graphforge.figures.formula import compute
from graphforge.figures.numbers import parse_value
from graphforge.models.spec import AgentView, CriterionKind, Polarity, TaskSpec
from graphforge.models.workspace import FileRole


def recompute(computation: str, anchor_numbers: Sequence[float]) -> float:
    """The expected value a computation yields from the anchors' numbers (value text x scale, in order)."""
    value = compute(computation, anchor_numbers)
    if value is None:
        raise ValueError(
            f"computation {computation!r} is unknown or undefined for {len(anchor_numbers)} anchors"
        )
    return value


def anchor_number(value_text: str, scale: float) -> float:
    """The number an anchor's value text states, in full units."""
    number = parse_value(value_text)
    if number is None:
        raise ValueError(f"{value_text!r} is not a number")
    return number * scale


def number_forms(x: float) -> set[str]:
    """Ways a number may be printed, for leak searches: 9115, 9,115, 9115.0, 9,115.00, 0.082, 8.2%."""
    forms = {f"{x:.0f}", f"{x:,.0f}"} if abs(x - round(x)) < 1e-9 else set()
    forms |= {f"{x:g}", f"{x:.2f}", f"{x:,.2f}"}
    if abs(x) < 10 and x != round(x):
        forms |= {f"{100 * x:.1f}%", f"{100 * x:.2f}%", f"{x:.3f}", f"{x:.4f}"}
    return {f for f in forms if len(f.strip("-0.,%")) >= 2}


def leaks(view: AgentView, spec: TaskSpec, fact_ids: Iterable[str] = ()) -> list[str]:
    """Hidden things found in the agent's view: roles, fact ids, anchors, expected values. Empty is good.

    What the compiler wrote (the statement and the deliverable names) is searched; the workspace's own file
    names are not, so "core-inflation-2024.csv" or "Supporting Schedules 2024.pdf" is no role leak, while a
    statement that calls a file "the confuser" or quotes an expected value is.
    """
    text = "\n".join([view.statement, *view.deliverables])
    found: list[str] = []
    for role in FileRole:
        if re.search(rf"\b{role.value}\b", text, re.I):
            found.append(f"role word {role.value!r}")
    ids = set(fact_ids) | {a for c in spec.criteria for a in c.anchors}
    whole = view.model_dump_json()
    found += [f"fact id {i}" for i in sorted(ids) if i and i in whole]
    if re.search(r"\bfact-[0-9a-f]{8,}", whole):
        found.append("a fact id pattern")
    for c in spec.criteria:
        if c.polarity is not Polarity.POSITIVE and c.check == "stale":
            continue  # a stale value sits in the workspace files; naming it is not a leak
        if c.expected_value is not None:
            found += [
                f"{c.criterion_id} expected value {f}"
                for f in sorted(number_forms(c.expected_value))
                if re.search(rf"(?<![\w.,]){re.escape(f)}(?![\w]|[.,]\d)", text)
            ]
        visible = c.expected is not None and any(c.expected.lower() in f.lower() for f in view.files)
        if (
            c.expected
            and not visible
            and c.kind is CriterionKind.VALUE
            and len(c.expected.strip("-0.,%")) >= 2
            and re.search(rf"(?<![\w.,]){re.escape(c.expected)}(?![\w]|[.,]\d)", text, re.I)
        ):
            found.append(f"{c.criterion_id} expected text {c.expected!r}")
    for word in ("criterion", "criteria", "anchor", "anchored", "rubric", "expected_value", "verification"):
        if re.search(rf"\b{word}\b", text, re.I):
            found.append(f"word {word!r}")
    return found


def spec_problems(
    spec: TaskSpec, fact_values: Mapping[str, tuple[str, float, str]] | None = None
) -> list[str]:
    """Structural problems of a spec (empty when sound).

    Args:
        fact_values: fact_id -> (value text, scale, span text); when given, every anchor must be recoverable
            from its span and every VALUE criterion's expected value must recompute from its anchors.
    """
    problems: list[str] = []
    names = {d.name for d in spec.deliverables}
    for d in spec.deliverables:
        if d.name not in spec.statement:
            problems.append(f"statement does not name deliverable {d.name}")
        for cell in d.required_formulas:
            if cell.split("!")[0] not in d.required_sheets:
                problems.append(f"{d.name}: formula cell {cell} is on no required sheet")
    for c in spec.criteria:
        if c.target_deliverable not in names:
            problems.append(f"{c.criterion_id} targets unknown deliverable {c.target_deliverable}")
        if c.polarity is Polarity.POSITIVE and not c.anchors:
            problems.append(f"{c.criterion_id} is positive and has no anchor")
        if fact_values is None:
            continue
        for a in c.anchors:
            if a not in fact_values:
                problems.append(f"{c.criterion_id}: anchor {a} is not a known fact")
            elif fact_values[a][0] not in fact_values[a][2]:
                problems.append(f"{c.criterion_id}: anchor {a} value not found in its span")
        if (
            c.kind is CriterionKind.VALUE
            and c.polarity is Polarity.POSITIVE
            and c.computation
            and c.expected_value is not None
            and all(a in fact_values for a in c.anchors)
        ):
            try:
                numbers = [anchor_number(fact_values[a][0], fact_values[a][1]) for a in c.anchors]
                got = recompute(c.computation, numbers)
            except ValueError as exc:
                problems.append(f"{c.criterion_id} ({c.check or c.kind.value}): {exc}")
                continue
            if abs(got - c.expected_value) > 1e-6 * max(1.0, abs(got)):
                problems.append(f"{c.criterion_id}: expected {c.expected_value} but anchors give {got}")
    return problems

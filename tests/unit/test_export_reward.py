"""Rubric reward with the GRPO signature: Q from exported rubric JSON, no Neo4j."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphforge.errors import ExportError
from graphforge.export.reward import load_rubric_reward, numbers_in, score_completion
from graphforge.models.spec import (
    CriterionKind,
    CriterionSpec,
    DeliverableSpec,
    Polarity,
    TaskSpec,
    statement_hash,
)

STATEMENT = "Reconcile Q3 revenue across the ledger and the board deck; write recon.md."


def spec() -> TaskSpec:
    def crit(n: int, polarity: Polarity, kind: CriterionKind, weight: float, **kw: object) -> CriterionSpec:
        return CriterionSpec(
            criterion_id=f"s@v1/c{n}",
            polarity=polarity,
            kind=kind,
            weight=weight,
            requirement="r",
            target_deliverable="recon.md",
            verification="v",
            anchors=["f1"],
            **kw,
        )  # type: ignore[arg-type]

    return TaskSpec(
        spec_id="s@v1",
        base_id="s",
        version=1,
        workspace_id="w",
        statement=STATEMENT,
        statement_hash=statement_hash(STATEMENT),
        compiler="template",
        deliverables=[
            DeliverableSpec(
                deliverable_id="s@v1/recon.md",
                name="recon.md",
                format="md",
                required_sections=["Summary", "Variance"],
            )
        ],
        criteria=[
            crit(1, Polarity.POSITIVE, CriterionKind.VALUE, 2.0, expected_value=1_234_500.0),
            crit(2, Polarity.POSITIVE, CriterionKind.VALUE, 1.0, expected_value=0.125, tolerance=0.01),
            crit(3, Polarity.POSITIVE, CriterionKind.STRUCTURE, 1.0),
            crit(4, Polarity.POSITIVE, CriterionKind.QUALITATIVE, 5.0),
            crit(5, Polarity.NEGATIVE, CriterionKind.VALUE, 1.0, expected_value=1_300_000.0),
        ],
    )


def write_rubrics(tmp_path: Path) -> Path:
    path = tmp_path / "rubrics.jsonl"
    path.write_text(json.dumps(spec().model_dump(mode="json")) + "\n", encoding="utf-8")
    return path


GOOD = [
    {
        "role": "assistant",
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {
                    "name": "write_file",
                    "arguments": json.dumps(
                        {
                            "path": "recon.md",
                            "content": "# Summary\nRevenue 1,234,500 reconciled.\n# Variance\n12.5% gap",
                        }
                    ),
                },
            }
        ],
    },
    {"role": "assistant", "content": "Wrote recon.md."},
]


def test_numbers_read_reports_conventions() -> None:
    assert numbers_in("(1,200) and 12.5% and $3.5e2") == [-1200.0, 12.5, 0.125, 350.0]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("variance of –45 against plan", [-45.0]),  # en dash minus, as office files print it
        ("budget EUR 1.2 million", [1_200_000.0]),
        ("Summe 1.234.567,89", [1_234_567.89]),  # German grouping: one figure, not three
        ("(45) and —45", [-45.0, -45.0]),
    ],
)
def test_numbers_are_read_as_a_reader_reads_them(text: str, expected: list[float]) -> None:
    assert numbers_in(text) == pytest.approx(expected)


def test_a_scaled_or_localised_figure_earns_the_value_criterion() -> None:
    def only_value(expected: float) -> TaskSpec:
        s = spec()
        first = s.criteria[0].model_copy(update={"expected_value": expected})
        return s.model_copy(update={"criteria": [first]})

    assert score_completion(only_value(1_200_000.0), "recon.md: EUR 1.2 million").reward == 1.0
    assert score_completion(only_value(1.2), "recon.md: EUR 1.2 million").reward == 0.0
    assert score_completion(only_value(-45.0), "recon.md: gap –45").reward == 1.0
    assert score_completion(only_value(45.0), "recon.md: gap –45").reward == 0.0
    assert score_completion(only_value(1_234_567.89), "recon.md: 1.234.567,89").reward == 1.0


def test_full_marks_from_tool_call_contents(tmp_path: Path) -> None:
    reward = load_rubric_reward(write_rubrics(tmp_path))
    assert reward.__name__ == "rubric_reward"
    # GRPOTrainer passes every non-prompt column as a list, plus its own keywords.
    assert reward([GOOD], spec_id=["s@v1"], prompts=[[]], completion_ids=[[1]], trainer_state=None) == [1.0]
    breakdown = score_completion(spec(), GOOD)
    assert [c.score for c in breakdown.criteria] == [1.0, 1.0, 1.0, None, 0.0]  # qualitative left out


def test_partial_credit_negative_penalty_and_missing_deliverable() -> None:
    partial = "recon.md: Summary only. Revenue 1,300,000."
    result = score_completion(spec(), partial)
    # positives: value 0/2, percent 0/1, sections 1/2 of weight 1 -> 0.5; negative confuser seen: -1.
    assert result.reward == pytest.approx((0.5 - 1.0) / 4.0)
    assert score_completion(spec(), "Revenue 1,234,500 in the summary").reward == 0.0
    assert score_completion(spec(), "Revenue 1,234,500", require_deliverables=False).reward == pytest.approx(
        0.5
    )


def test_unknown_spec_and_mismatched_lengths_raise(tmp_path: Path) -> None:
    reward = load_rubric_reward(write_rubrics(tmp_path))
    with pytest.raises(ExportError, match="no rubric for spec 'other'"):
        reward(["x"], spec_id=["other"])
    with pytest.raises(ExportError, match="2 completions but 1 spec ids"):
        reward(["x", "y"], spec_id=["s@v1"])

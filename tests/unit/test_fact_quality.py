"""Fact precision against hand labels: a label counts only for the statement it judged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphforge.errors import SourceFormatError
from graphforge.evidence.quality import SampledFact, precision, read_labels


def _fact(value: str, statement: str, kind: str = "quantity") -> SampledFact:
    return SampledFact(fact_id=f"f-{value}", kind=kind, value=value, statement=statement, sha256="ab",
                       locator="row=2", path="a.csv", span_text=f"North\t{value}")


def _write(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_precision_counts_current_labels_and_treats_reworded_facts_as_unlabelled(tmp_path: Path) -> None:
    labels = read_labels(_write(tmp_path / "labels.jsonl", [
        {"sha256": "ab", "locator": "row=2", "kind": "quantity", "value": "100",
         "statement": "Revenue of North is 100", "correct": True, "rule": "Q2"},
        {"sha256": "ab", "locator": "row=2", "kind": "quantity", "value": "7",
         "statement": "North is 7", "correct": False, "rule": "Q2"},
        {"sha256": "ab", "locator": "row=2", "kind": "quantity", "value": "9",
         "statement": "Value of North is 9", "correct": False, "rule": "Q2"},
    ]))
    facts = [
        _fact("100", "Revenue of North is 100"),
        _fact("7", "North is 7"),
        _fact("9", "Costs of North is 9"),  # the extractor now says something else: judged anew
        _fact("12", "Revenue of South is 12"),  # never labelled
    ]
    got = precision(facts, labels)
    assert (got.labelled, got.correct, got.unlabelled) == (2, 1, 2) and got.value == 0.5
    assert precision(facts, labels, kinds=["date"]).value is None


def test_a_broken_label_line_names_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text('{"sha256": "ab"}\n', encoding="utf-8")
    with pytest.raises(SourceFormatError, match=r"labels.jsonl: line 1: not a label"):
        read_labels(path)

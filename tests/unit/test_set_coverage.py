"""Set coverage, negative: a checklist entry that states none of the source's requirements is invented.

The pool is every requirement the source states, so a checklist longer than the ones the positives ask for
is no violation; a reworded but faithful entry is not invented; a made-up one is, wherever it sits."""

from __future__ import annotations

from pathlib import Path

import openpyxl

from graphforge.judge.documents import read_document
from graphforge.judge.items import verify_check
from graphforge.judge.view import Anchor, JudgeView, WorkspaceFile
from graphforge.models.judge import JudgeArm
from graphforge.models.spec import (
    CriterionKind,
    CriterionSpec,
    DeliverableSpec,
    Polarity,
    TaskSpec,
    statement_hash,
)

BOOK = "checklist.xlsx"
SOURCE = "policy/records_policy.pdf"
REQUIREMENTS = [
    "Each office shall designate a records liaison by March 1 of each year.",
    "Program managers must retain signed grant agreements for six years after closeout.",
    "Contractors are required to report any loss of federal records within five days.",
]


def _view() -> JudgeView:
    anchors = [Anchor(fact_id=f"req-{i}", value=text, span_text=f"Section {i + 2}. {text}", path=SOURCE,
                      locator=f"page={i + 1}", role="core") for i, text in enumerate(REQUIREMENTS)]
    criterion = CriterionSpec(
        criterion_id="cl@v1/c9", polarity=Polarity.NEGATIVE, kind=CriterionKind.STRUCTURE, weight=1.0,
        requirement=f"{BOOK} lists a requirement that none of the source documents states",
        target_deliverable=BOOK, target_location="Checklist", expected="Checklist",
        verification="set coverage", anchors=[a.fact_id for a in anchors], check="invented",
        fact_kind="requirement")
    statement = "Turn the records policy into a checklist."
    spec = TaskSpec(spec_id="cl@v1", base_id="cl", version=1, workspace_id="ws", statement=statement,
                    statement_hash=statement_hash(statement), criteria=[criterion], compiler="family",
                    deliverables=[DeliverableSpec(deliverable_id=f"cl@v1/{BOOK}", name=BOOK, format="xlsx")])
    return JudgeView(spec=spec, anchors={criterion.criterion_id: anchors},
                     files=[WorkspaceFile(path=SOURCE)])


def _book(tmp_path: Path, rows: list[str], sheet: str = "Checklist") -> Path:
    book = openpyxl.Workbook()
    ws = book.active
    ws.title = sheet
    ws.append(["Requirement", "Section", "Source file", "Status"])
    for i, text in enumerate(rows):
        ws.append([text, f"Section {i + 2}", "records_policy.pdf", "Open"])
    ws.append(["Total", "", "", ""])  # a short closing row is not an entry
    path = tmp_path / BOOK
    book.save(path)
    return path


def _score(tmp_path: Path, rows: list[str], arm: JudgeArm = JudgeArm.ANCHORED) -> tuple[float, str]:
    view = _view()
    score, evidence, _ = verify_check(view.spec.criteria[0], arm, view, read_document(_book(tmp_path, rows),
                                                                                      "xlsx"))
    return score, evidence


def test_a_checklist_of_source_requirements_invents_nothing(tmp_path: Path) -> None:
    score, evidence = _score(tmp_path, REQUIREMENTS)
    assert score == 0.0, evidence
    # Reworded but faithful (the content words kept, the order and filler changed): still a source item.
    reworded = ["Designate records liaison each office, March 1 each year (shall)"]
    assert _score(tmp_path, reworded)[0] == 0.0


def test_an_entry_no_source_states_is_a_violation_wherever_it_sits(tmp_path: Path) -> None:
    made_up = "Every employee shall complete cybersecurity training before using the network."
    for rows in ([made_up, *REQUIREMENTS], [*REQUIREMENTS, made_up]):
        score, evidence = _score(tmp_path, rows)
        assert score == 1.0 and "cybersecurity" in evidence, evidence


def test_without_anchors_the_check_cannot_accuse(tmp_path: Path) -> None:
    made_up = "Every employee shall complete cybersecurity training before using the network."
    score, evidence = _score(tmp_path, [made_up], JudgeArm.UNANCHORED)
    assert score == 0.0 and "no source items" in evidence

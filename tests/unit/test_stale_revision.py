"""A change memo's stale negative on a reworded requirement: the old wording stated as current is a
violation even when the line repeats the item's name from the request, which quotes the new wording."""

from __future__ import annotations

from pathlib import Path

import docx

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

MEMO = "change_memo.docx"
OLD, NEW = "funding/calls_2023-04.md", "funding/calls_2023-12.md"
OLD_RULE = ("Proposer must have a research proposal selected for funding through any previous solicitation "
            "with at least 15 months remaining in its period of performance")
NEW_RULE = ("Proposer must have an existing research proposal selected for funding with at least 15 months "
            "remaining in its period of performance at the time of submission")
LABEL = "the requirement under 'F.8 Supplements' that begins 'Proposer must have an existing research…'"


def _view() -> JudgeView:
    anchors = [Anchor(fact_id="old", value=OLD_RULE, span_text=f"- {OLD_RULE}.", path=OLD,
                      locator="section=5", role="core"),
               Anchor(fact_id="new", value=NEW_RULE, span_text=f"- {NEW_RULE}.", path=NEW,
                      locator="section=5", role="core")]
    criterion = CriterionSpec(
        criterion_id="m@v1/c5", polarity=Polarity.NEGATIVE, kind=CriterionKind.VALUE, weight=1.5,
        requirement=f"{MEMO} reports the superseded value from calls_2023-04.md as current",
        target_deliverable=MEMO, expected=OLD_RULE.lower(), verification="stale", anchors=["old", "new"],
        check="stale", fact_kind="requirement", label=LABEL)
    statement = "Write a change memo."
    spec = TaskSpec(spec_id="m@v1", base_id="m", version=1, workspace_id="ws", statement=statement,
                    statement_hash=statement_hash(statement), criteria=[criterion], compiler="family",
                    deliverables=[DeliverableSpec(deliverable_id=f"m@v1/{MEMO}", name=MEMO, format="docx")])
    return JudgeView(spec=spec, anchors={criterion.criterion_id: anchors},
                     files=[WorkspaceFile(path=OLD), WorkspaceFile(path=NEW)])


def _score(tmp_path: Path, line: str) -> float:
    document = docx.Document()
    document.add_heading("Changes", level=1)
    document.add_paragraph(line)
    path = tmp_path / MEMO
    document.save(path)
    view = _view()
    doc = read_document(path, "docx")
    return verify_check(view.spec.criteria[0], JudgeArm.ANCHORED, view, doc)[0]


def test_the_old_wording_beside_the_requested_name_is_stated_as_current(tmp_path: Path) -> None:
    line = f"{LABEL}: {OLD_RULE} at the time of submission (source: calls_2023-04.md)"
    assert _score(tmp_path, line) == 1.0


def test_the_new_wording_with_the_old_one_called_earlier_is_no_violation(tmp_path: Path) -> None:
    line = f"{LABEL}: {NEW_RULE} (earlier: {OLD_RULE})"
    assert _score(tmp_path, line) == 0.0
    assert _score(tmp_path, f"{LABEL}: {NEW_RULE}.") == 0.0

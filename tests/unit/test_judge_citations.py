"""Citations checked against the workspace's real file names and the graph (hand-built views, no Neo4j)."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphforge.judge.core import judge_attempt
from graphforge.judge.regions import Line, citations
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

ODD_NAMES = ["plans/Plan-(v2).docx", "Q3 results, final.xlsx", "memos/O'Brien memo.docx", "R&D budget.xlsx"]


@pytest.mark.parametrize(
    ("text", "path", "locators"),
    [
        ("Source: Plan-(v2).docx, p. 3", "plans/Plan-(v2).docx", ("page=3",)),
        ("Source: Q3 results, final.xlsx (sheet=Q3!B4)", "Q3 results, final.xlsx", ("sheet=q3!B4",)),
        ("As O'Brien memo.docx says", "memos/O'Brien memo.docx", ()),
        ("per R&D budget.xlsx row 4", "R&D budget.xlsx", ("row=4",)),
        ("See the ledger memos/O'Brien memo.docx para 2", "memos/O'Brien memo.docx", ("para=2",)),
    ],
)
def test_real_file_names_with_any_characters_are_recognised(text: str, path: str,
                                                            locators: tuple[str, ...]) -> None:
    found = citations([Line(text, "l1", frozenset())], ODD_NAMES, set())
    assert [(c.path, c.locators) for c in found] == [(path, locators)], found


def test_a_name_the_workspace_lacks_is_still_a_citation_of_no_file() -> None:
    found = citations([Line("see old_Plan-(v2).docx and plans/Plan-(v3).docx", "l1", frozenset())],
                      ODD_NAMES, set())
    assert [(c.token, c.path) for c in found] == [("old_Plan-(v2).docx", None),
                                                  ("plans/Plan-(v3).docx", None)]


SPEC_ID = "odd@v1"
MEMO = "memo.md"
PLAN_SPAN = "Programme budget (v2): 48,200 for the pilot phase."


def _view() -> JudgeView:
    anchor = Anchor(fact_id="f-plan", statement="pilot budget", value="48,200", value_num=48200.0,
                    locator="page=3", span_text=PLAN_SPAN, path="plans/Plan-(v2).docx", role="core")
    criteria = [
        CriterionSpec(criterion_id=f"{SPEC_ID}/c1", polarity=Polarity.POSITIVE, kind=CriterionKind.VALUE,
                      weight=2, requirement="Pilot budget", target_deliverable=MEMO,
                      target_location="section=Figures", expected_value=48200.0, computation="copy",
                      verification="recompute", anchors=["f-plan"]),
        CriterionSpec(criterion_id=f"{SPEC_ID}/c2", polarity=Polarity.POSITIVE, kind=CriterionKind.CITATION,
                      weight=1, requirement="Cite the plan", target_deliverable=MEMO,
                      target_location="section=Sources", verification="find the citation",
                      anchors=["f-plan"]),
    ]
    statement = f"Write {MEMO} with the sections Figures and Sources."
    spec = TaskSpec(spec_id=SPEC_ID, base_id="odd", version=1, workspace_id="ws-odd", statement=statement,
                    statement_hash=statement_hash(statement), compiler="template", criteria=criteria,
                    deliverables=[DeliverableSpec(deliverable_id=f"{SPEC_ID}/{MEMO}", name=MEMO, format="md",
                                                  required_sections=["Figures", "Sources"])])
    return JudgeView(spec=spec, anchors={c.criterion_id: [anchor] for c in criteria},
                     files=[WorkspaceFile(path=p) for p in ODD_NAMES])


def test_citing_a_file_name_with_parentheses_meets_the_citation_criterion(tmp_path: Path) -> None:
    memo = tmp_path / MEMO
    memo.write_text("# Memo\n\n## Figures\n\n- Pilot budget: 48,200\n\n## Sources\n\n"
                    "- Source: plans/Plan-(v2).docx (page=3)\n", encoding="utf-8")
    judgment, _ = judge_attempt(_view(), {MEMO: memo}, JudgeArm.ANCHORED, trajectory_id="t")
    c2 = next(r for r in judgment.ratings if r.criterion_id.endswith("/c2"))
    assert c2.score == 1.0, c2.evidence
    assert judgment.q == pytest.approx(1.0), judgment.reason

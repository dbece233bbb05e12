"""Human review, pure parts: the labeling config, tasks from a spec, verdicts parsed from a Label Studio
export (as its API and its Export > JSON give it), and what a verdict does to a spec and to Q."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from graphforge.errors import SourceFormatError
from graphforge.models.judge import CriterionRating, q_score
from graphforge.models.spec import CriterionKind, CriterionSpec, DeliverableSpec, Polarity, TaskSpec
from graphforge.review.label_studio import (
    LABEL_CONFIG,
    AnchorText,
    Verdict,
    build_task,
    parse_export,
    read_export_file,
)
from graphforge.review.verdicts import CriterionReview, SpecReview, reviewed_q, reviewed_spec
from graphforge.stages.admit_trajectories import reviewed_row_q
from graphforge.stages.review_import import check_targets


def _spec() -> TaskSpec:
    def crit(n: int, polarity: Polarity = Polarity.POSITIVE) -> CriterionSpec:
        return CriterionSpec(criterion_id=f"s@v1/c{n}", polarity=polarity, kind=CriterionKind.VALUE, weight=1,
                             requirement=f"requirement {n}", target_deliverable="out.xlsx",
                             target_location=f"Summary!B{n}", verification="compare", anchors=[f"f{n}"])
    return TaskSpec(spec_id="s@v1", base_id="s", version=1, workspace_id="ws", statement="Do the thing.",
                    statement_hash="h", compiler="template", family="reconciliation",
                    deliverables=[DeliverableSpec(deliverable_id="s@v1/out.xlsx", name="out.xlsx",
                                                  format="xlsx", required_sheets=["Summary"])],
                    criteria=[crit(0), crit(1), crit(2, Polarity.NEGATIVE)])


def _annotation(results: list[dict[str, object]], **extra: object) -> dict[str, object]:
    return {"id": 7, "unique_id": "u-1", "completed_by": 1, "was_cancelled": False,
            "created_at": "2026-12-04T21:03:52.365528Z", "updated_at": "2026-12-04T21:05:00Z",
            "result": results, **extra}


def _choice(name: str, value: str) -> dict[str, object]:
    return {"from_name": name, "to_name": "x", "type": "choices", "value": {"choices": [value]}}


def _text(name: str, value: str) -> dict[str, object]:
    return {"from_name": name, "to_name": "x", "type": "textarea", "value": {"text": [value]}}


def test_labeling_config_is_xml_with_a_required_spec_verdict_and_a_block_per_criterion() -> None:
    root = ET.fromstring(LABEL_CONFIG)
    spec_verdict = root.find(".//Choices[@name='spec_verdict']")
    assert spec_verdict is not None and spec_verdict.get("required") == "true"
    repeater = root.find(".//Repeater")
    assert repeater is not None and repeater.get("on") == "$criteria"
    names = {e.get("name") for e in repeater.iter() if e.get("name")}
    assert {"criterion_{{idx}}", "anchors_{{idx}}", "verdict_{{idx}}", "edited_{{idx}}"} <= names


def test_a_task_shows_each_criterion_beside_its_anchored_spans() -> None:
    anchors = [AnchorText(criterion_id="s@v1/c0", path="finance/ledger.xlsx", sha256="a" * 64,
                          locator="sheet=Q1!A3:D3", span_text="Industrial Sensors 4210 3150 1060")]
    task = build_task(_spec(), anchors, "review-1")["data"]
    assert task["spec_id"] == "s@v1" and task["title"] == "reconciliation v1 · s@v1"
    assert "out.xlsx (xlsx)" in task["deliverables"] and "sheets: Summary" in task["deliverables"]
    c0, c1 = task["criteria"][0], task["criteria"][1]
    assert c0["criterion_id"] == "s@v1/c0" and c0["requirement"] == "requirement 0"
    assert "finance/ledger.xlsx — sheet=Q1!A3:D3" in c0["anchors"] and "Industrial Sensors" in c0["anchors"]
    assert "c0 · positive · value" in c0["text"] and "Summary!B0" in c0["text"]
    assert "no anchored span" in c1["anchors"]
    json.dumps(task)  # what Label Studio imports


def test_verdicts_are_read_per_spec_and_criterion_with_reviewer_and_time() -> None:
    task = build_task(_spec(), [], "review-1")
    export = [{**task, "id": 3, "project": 2, "annotations": [_annotation([
        _choice("spec_verdict", "accept"), _choice("verdict_0", "reject"), _choice("verdict_1", "edit"),
        _text("edited_1", "the edited requirement"), _text("edited_2", "text without a verdict")])]},
        {**build_task(_spec().model_copy(update={"spec_id": "t@v1"}), [], "r"), "id": 4, "annotations": []}]
    parsed = parse_export(export, {1: "ann@example.org"})
    assert parsed.annotations == 1 and parsed.skipped_tasks == 1
    by_target = {v.target_id: v for v in parsed.verdicts}
    assert by_target["s@v1"].verdict is Verdict.ACCEPT and by_target["s@v1"].target_kind == "spec"
    assert by_target["s@v1/c0"].verdict is Verdict.REJECT
    assert by_target["s@v1/c0"].seen_text == "requirement 0"
    assert by_target["s@v1/c1"].text == "the edited requirement"
    assert "s@v1/c2" not in by_target and any("s@v1/c2" in p for p in parsed.problems)
    assert {v.reviewer for v in parsed.verdicts} == {"ann@example.org"}
    assert by_target["s@v1"].reviewed_at == "2026-12-04T21:05:00+00:00"
    assert by_target["s@v1"].ls_task == 3 and by_target["s@v1"].ls_project == 2
    # The same annotation read again gives the same review ids (a re-import rewrites the same nodes).
    assert [v.review_id for v in parse_export(export).verdicts] == [v.review_id for v in parsed.verdicts]
    # A file export names the user inline; a cancelled (skipped) annotation is no verdict.
    inline = [{**task, "annotations": [_annotation([_choice("spec_verdict", "reject")],
                                                   completed_by={"id": 5, "email": "b@example.org"}),
                                       _annotation([_choice("spec_verdict", "accept")], was_cancelled=True)]}]
    (only,) = parse_export(inline).verdicts
    assert only.reviewer == "b@example.org" and only.verdict is Verdict.REJECT


def test_an_edit_without_text_is_reported_and_not_taken() -> None:
    task = build_task(_spec(), [], "r")
    parsed = parse_export([{**task, "annotations": [_annotation([_choice("spec_verdict", "accept"),
                                                                 _choice("verdict_0", "edit")])]}])
    assert [v.target_id for v in parsed.verdicts] == ["s@v1"]
    assert any("without the edited text" in p for p in parsed.problems)


def test_a_verdict_on_a_changed_or_missing_target_is_skipped() -> None:
    task = build_task(_spec(), [], "r")
    verdicts = parse_export([{**task, "annotations": [_annotation([
        _choice("spec_verdict", "accept"), _choice("verdict_0", "accept"), _choice("verdict_1", "reject")])]}
    ]).verdicts
    kept, skipped = check_targets(verdicts, {"s@v1": {"s@v1/c0": "requirement 0",
                                                      "s@v1/c1": "a new requirement"}})
    assert [v.target_id for v in kept] == ["s@v1", "s@v1/c0"]
    assert [s.target_id for s in skipped] == ["s@v1/c1"] and "changed" in skipped[0].reason
    kept, skipped = check_targets(verdicts, {})
    assert not kept and all("no spec" in s.reason for s in skipped)


def test_read_export_file_refuses_what_is_not_a_task_list(tmp_path: Path) -> None:
    bad = tmp_path / "export.json"
    bad.write_text('{"not": "a list"}')
    with pytest.raises(SourceFormatError, match="list of tasks"):
        read_export_file(bad)
    bad.write_text("[{")
    with pytest.raises(SourceFormatError, match="not JSON"):
        read_export_file(bad)


def test_a_reviewed_spec_drops_rejected_criteria_and_takes_edited_text() -> None:
    state = SpecReview(spec_id="s@v1", verdict="accepted", criteria=[
        CriterionReview(criterion_id="s@v1/c0", verdict="rejected"),
        CriterionReview(criterion_id="s@v1/c1", verdict="edited", text="new words")])
    spec = reviewed_spec(_spec(), state)
    assert [c.criterion_id for c in spec.criteria] == ["s@v1/c1", "s@v1/c2"]
    assert spec.criteria[0].requirement == "new words"
    assert reviewed_spec(_spec(), None) == _spec()
    assert SpecReview(spec_id="x", verdict="rejected", reviewer="r@x").reason() == (
        "spec rejected in human review by r@x")


def test_q_leaves_out_rejected_criteria() -> None:
    ratings = [CriterionRating(criterion_id="c0", polarity="positive", weight=1, score=1, verifier="d",
                               evidence=""),
               CriterionRating(criterion_id="c1", polarity="positive", weight=1, score=0, verifier="d",
                               evidence=""),
               CriterionRating(criterion_id="c2", polarity="negative", weight=0.5, score=1, verifier="d",
                               evidence="")]
    assert q_score(ratings) == pytest.approx(0.25)
    assert reviewed_q(ratings, {"c1", "c2"}) == pytest.approx(1.0)
    row = {"q": 0.25, "deliverables_ok": True, "ratings_json": json.dumps([r.model_dump() for r in ratings])}
    state = SpecReview(spec_id="s", verdict="accepted", criteria=[CriterionReview(criterion_id="c1",
                                                                                  verdict="rejected")])
    q, note = reviewed_row_q(row, state)
    assert q == pytest.approx(0.5) and "1 rejected in human review" in note and "0.250" in note
    assert reviewed_row_q(row, None) == (0.25, "")
    assert reviewed_row_q({**row, "deliverables_ok": False}, state) == (0.25, "")  # a loss stays a loss

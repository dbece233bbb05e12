"""Human review round trip against a real local Label Studio: specs exported as a review project (pushed
through its REST API), verdicts submitted through its web page in headless Chromium (Debian's chromium,
driven by playwright), imported back into the graph; admission and export then respect them.

Label Studio runs from its own venv (`make install-review`); a missing Label Studio or chromium fails the
test, it is never skipped.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from graphforge.context import StageContext
from graphforge.demo.sample.workspace import generate_sample_workspace
from graphforge.models.trajectory import TrajectoryStatus
from graphforge.oracle import InjectKind
from graphforge.review.label_studio import LABEL_CONFIG, LabelStudioClient, LabelStudioTarget
from graphforge.review.verdicts import review_states
from graphforge.stages import (
    admit_trajectories,
    build_evidence,
    compile_specs,
    export_rubrics,
    export_sft,
    judge_trajectories,
    load_workspace,
    review_export,
    review_import,
    rollout_oracle,
)
from tests.support.label_studio import LabelStudio, running_label_studio

pytestmark = [pytest.mark.neo4j, pytest.mark.slow]


def _chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        raise RuntimeError("no chromium on PATH: apt-get install -y chromium")
    return path


def _pipeline(ctx: StageContext, tmp_path: Path) -> tuple[list[str], dict[str, dict[str, str]]]:
    """The sample compiled and two oracle rollouts per spec judged: spec_id -> {'good': id, 'wrong': id}."""
    sample = generate_sample_workspace(tmp_path / "sample")
    load_workspace.run(ctx, load_workspace.LoadWorkspaceParams(root=sample.root, manifest=sample.manifest,
                                                               jobs=1, use_llm_roles=False))
    build_evidence.run(ctx, build_evidence.BuildEvidenceParams(extractor="rule-based"))
    specs = [s.spec_id for s in compile_specs.run(ctx, compile_specs.CompileSpecsParams(
        compiler="template", all_families=True)).specs]
    runs: dict[str, dict[str, str]] = {}
    for spec_id in specs:
        good = rollout_oracle.run(ctx, rollout_oracle.RolloutOracleParams(spec_id=spec_id))
        wrong = rollout_oracle.run(ctx, rollout_oracle.RolloutOracleParams(
            spec_id=spec_id, inject=[InjectKind.WRONG_NUMBER]))
        runs[spec_id] = {"good": good.trajectory_id, "wrong": wrong.trajectory_id}
    judge_trajectories.run(ctx, judge_trajectories.JudgeTrajectoriesParams(use_llm=False))
    return specs, runs


def _submit_in_browser(ls: LabelStudio, project: int, task: int, spec_verdict: str,
                       criteria: dict[int, tuple[str, str | None]], shot: Path) -> None:
    """Log in to Label Studio's web page as the reviewer and submit one task's verdicts by clicking."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=_chromium(), headless=True, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 1200})
        page.goto(f"{ls.url}/user/login/")
        page.fill('input[name="email"]', ls.username)
        page.fill('input[name="password"]', ls.password)
        page.click('button[type="submit"], input[type="submit"]')
        page.wait_for_url(lambda u: "/user/login" not in u, timeout=60_000)
        page.goto(f"{ls.url}/projects/{project}/data?task={task}")
        groups = page.locator(".lsf-choices")
        groups.first.wait_for(timeout=60_000)
        groups.nth(0).locator(f'input[name="{spec_verdict}"]').click()
        for idx, (verdict, text) in criteria.items():
            groups.nth(1 + idx).locator(f'input[name="{verdict}"]').click()
            if text is not None:
                box = page.locator(f'[name="edited_{idx}"]')
                box.fill(text)
                box.press("Enter")
        page.screenshot(path=str(shot), full_page=True)
        page.get_by_role("button", name="Submit").click()
        page.wait_for_timeout(2500)
        browser.close()


def _task_ids(ls: LabelStudio, project: int) -> dict[str, int]:
    with LabelStudioClient(ls.url, ls.token) as client:
        return {t["data"]["spec_id"]: int(t["id"]) for t in client.export_tasks(project)}


def test_review_round_trip_through_label_studio_web_page(ctx: StageContext, tmp_path: Path) -> None:
    specs, runs = _pipeline(ctx, tmp_path)
    assert len(specs) >= 3, specs
    first = admit_trajectories.run(ctx, admit_trajectories.AdmitTrajectoriesParams())
    before = {d.trajectory_id: d.status for d in first.decisions}
    q_before = {d.trajectory_id: d.q for d in first.decisions}
    admitted = [s for s in specs if before[runs[s]["good"]] is TrajectoryStatus.ADMITTED]
    # kept: accepted with the criteria its wrong-number rollout lost rejected (and one edited);
    # rejected_spec: rejected as a whole; unreviewed: no verdict.
    kept = next(s for s in admitted if before[runs[s]["wrong"]] is TrajectoryStatus.REJECTED)
    rejected_spec = next(s for s in admitted if s != kept)
    unreviewed = next(s for s in specs if s not in (kept, rejected_spec))

    # The criteria the wrong-number rollout of the kept spec lost: rejecting them in review clears its Q.
    spec = review_states(ctx.graph, [kept])[kept]
    assert spec.verdict is None and not spec.criteria

    with running_label_studio(tmp_path) as ls:
        target = LabelStudioTarget(url=ls.url, token=ls.token, title="GraphForge review test")  # type: ignore[arg-type]
        out = review_export.run(ctx, review_export.ReviewExportParams(out_dir=tmp_path / "review",
                                                                      spec_ids=specs, label_studio=target))
        assert out.specs == len(specs) and out.anchors > 0 and out.pushed is not None
        assert (tmp_path / "review" / "label_config.xml").read_text() == LABEL_CONFIG
        tasks = json.loads((tmp_path / "review" / "tasks.json").read_text())
        first_task: dict[str, Any] = next(t["data"] for t in tasks if t["data"]["spec_id"] == kept)
        assert first_task["criteria"]
        assert any("“" in c["anchors"] for c in first_task["criteria"])  # span text beside the criterion
        project = out.pushed.project
        ids = _task_ids(ls, project)
        assert set(ids) == set(specs)

        lost = _lost_criteria(ctx, runs[kept]["wrong"])
        order = [c["criterion_id"] for c in first_task["criteria"]]
        assert lost and set(lost) <= set(order)
        edit_idx = next(i for i, cid in enumerate(order) if cid not in lost)
        edited_text = "The report states the reconciled total exactly as the ledger gives it."
        verdicts = {order.index(cid): ("reject", None) for cid in lost}
        verdicts[edit_idx] = ("edit", edited_text)
        _submit_in_browser(ls, project, ids[kept], "accept", verdicts, tmp_path / "review-kept.png")
        _submit_in_browser(ls, project, ids[rejected_spec], "reject", {}, tmp_path / "review-rejected.png")

        imported = review_import.run(ctx, review_import.ReviewImportParams(
            label_studio=target.model_copy(update={"project": project})))
    assert imported.annotations == 2 and imported.unannotated_tasks == len(specs) - 2
    assert imported.specs == {"accept": 1, "reject": 1}
    assert imported.criteria == {"reject": len(lost), "edit": 1}
    assert imported.reviewers == [ls.username] and not imported.skipped and not imported.problems
    states = review_states(ctx.graph, specs)
    assert states[kept].verdict == "accepted" and states[rejected_spec].verdict == "rejected"
    assert states[kept].rejected_criteria == set(lost)
    assert states[kept].edited_criteria == {order[edit_idx]: edited_text}
    assert states[unreviewed].verdict is None

    # Admission: the rejected spec's rollouts are not admitted; the kept spec's wrong rollout is judged
    # without the criteria reviewers rejected (the ones it lost), so it now passes.
    after = {d.trajectory_id: d for d in admit_trajectories.run(
        ctx, admit_trajectories.AdmitTrajectoriesParams()).decisions}
    good_rejected = after[runs[rejected_spec]["good"]]
    assert good_rejected.status is TrajectoryStatus.REJECTED
    assert good_rejected.code is admit_trajectories.AdmissionReason.HUMAN_REVIEW
    assert ls.username in good_rejected.reason
    wrong = after[runs[kept]["wrong"]]
    assert wrong.q is not None and wrong.q > (q_before[runs[kept]["wrong"]] or 0), wrong.reason
    assert f"{len(lost)} rejected in human review" in wrong.reason

    # Export: rubrics drop the rejected spec and criteria and carry the edited text; SFT leaves out the
    # rejected spec; --reviewed-only leaves out the unreviewed one too.
    rub = export_rubrics.run(ctx, export_rubrics.ExportRubricsParams(out_dir=tmp_path / "rub"))
    rub_lines = (tmp_path / "rub" / "rubrics.jsonl").read_text().splitlines()
    rubrics = {r["spec_id"]: r for r in map(json.loads, rub_lines)}
    assert rejected_spec not in rubrics and kept in rubrics and unreviewed in rubrics
    assert rub.excluded_by_review == 1 and rub.criteria_rejected == len(lost) and rub.criteria_edited == 1
    criteria = {c["criterion_id"]: c for c in rubrics[kept]["criteria"]}
    assert not set(lost) & set(criteria) and criteria[order[edit_idx]]["requirement"] == edited_text
    only = export_rubrics.run(ctx, export_rubrics.ExportRubricsParams(out_dir=tmp_path / "rub2",
                                                                      reviewed_only=True))
    assert only.specs == 1 and only.excluded_by_review == len(specs) - 1

    sft = export_sft.run(ctx, export_sft.ExportSftParams(out_dir=tmp_path / "sft", skip_audit=True,
                                                         verify=False))
    rows = [json.loads(line) for line in (tmp_path / "sft" / "sft.jsonl").read_text().splitlines()]
    exported_specs = {r["spec_id"] for r in rows}
    assert rejected_spec not in exported_specs and kept in exported_specs
    reviewed_only = export_sft.run(ctx, export_sft.ExportSftParams(out_dir=tmp_path / "sft2", skip_audit=True,
                                                                   verify=False, reviewed_only=True))
    assert reviewed_only.excluded_by_review > sft.excluded_by_review
    sft2_lines = (tmp_path / "sft2" / "sft.jsonl").read_text().splitlines()
    assert {json.loads(line)["spec_id"] for line in sft2_lines} == {kept}


def _lost_criteria(ctx: StageContext, trajectory_id: str) -> list[str]:
    """The criteria that cost this trajectory credit in its anchored judgment: positive ones scored below 1,
    negative ones that fired."""
    from graphforge.graphdb import cypher

    query = cypher.CypherQuery(
        "test/lost_criteria",
        "MATCH (j:Judgment {arm: 'anchored'})-[:SCORES]->(:Trajectory {trajectory_id: $trajectory_id}) "
        "MATCH (j)-[r:RATES]->(c:Criterion) "
        "WHERE (r.polarity = 'positive' AND r.score < 1) OR (r.polarity = 'negative' AND r.score > 0) "
        "RETURN c.criterion_id AS criterion_id ORDER BY criterion_id",
        frozenset({"trajectory_id"}))
    return [str(r["criterion_id"]) for r in ctx.graph.read_dicts(query, trajectory_id=trajectory_id)]

"""The oracle passes the judge and an injected error fails it on the figure, status and deck families."""

from __future__ import annotations

import json
from pathlib import Path, PurePosixPath

import pytest

from graphforge.context import StageContext
from graphforge.demo.sample.workspace import generate_sample_workspace
from graphforge.errors import StageError
from graphforge.oracle import InjectKind
from graphforge.stages import (
    build_evidence,
    compile_specs,
    judge_trajectories,
    load_workspace,
    rollout_oracle,
)

TRACKER = (
    "Action,Owner,Due,Status\n"
    "Close Q2 ledger,Finance,2024-07-15,Complete\n"
    "Reconcile bank accounts,Treasury,2024-07-20,In progress\n"
    "Review segment costs,Controller,2024-07-25,Not started\n"
    "Update revenue forecast,FP&A,2024-07-30,Blocked\n"
)


def _workspace(ctx: StageContext, tmp_path: Path) -> None:
    sample = generate_sample_workspace(tmp_path / "sample")
    (sample.root / "trackers").mkdir()
    (sample.root / "trackers" / "close_actions.csv").write_text(TRACKER, encoding="utf-8")
    manifest = json.loads(sample.manifest.read_text(encoding="utf-8"))
    manifest["files"].append({"path": "trackers/close_actions.csv", "role": "core"})
    sample.manifest.write_text(json.dumps(manifest), encoding="utf-8")
    load_workspace.run(ctx, load_workspace.LoadWorkspaceParams(
        root=sample.root, manifest=sample.manifest, jobs=1, use_llm_roles=False))
    build_evidence.run(ctx, build_evidence.BuildEvidenceParams(extractor="rule-based"))


FAMILIES = {"figure_reconciliation", "status_summary", "briefing_deck"}


def test_the_oracle_passes_and_injected_errors_fail_on_figure_status_and_deck_families(
        ctx: StageContext, tmp_path: Path) -> None:
    _workspace(ctx, tmp_path)
    out = compile_specs.run(ctx, compile_specs.CompileSpecsParams(compiler="template", all_families=True))
    specs = {s.family: s for s in out.specs if s.family in FAMILIES}
    assert set(specs) == FAMILIES, (out.supported, out.skipped)
    formats = {f: {PurePosixPath(d).suffix for d in s.deliverables} for f, s in specs.items()}
    assert formats == {"figure_reconciliation": {".xlsx", ".md"}, "status_summary": {".md"},
                       "briefing_deck": {".pptx"}}
    # Only the reconciliation pairs a trusted figure with a draft or confuser (negative criteria).
    assert {f: s.negative > 0 for f, s in specs.items()} == {
        "figure_reconciliation": True, "status_summary": False, "briefing_deck": False}
    ids = sorted(s.spec_id for s in specs.values())
    # One oracle run over several specs (RolloutOracleParams.spec_ids), one rollout per spec and injection.
    runs = {kind: rollout_oracle.run(ctx, rollout_oracle.RolloutOracleParams(spec_ids=ids, inject=inject))
            for kind, inject in (("good", []), ("wrong", [InjectKind.WRONG_NUMBER]),
                                 ("missing", [InjectKind.MISSING_DELIVERABLE]),
                                 ("confuser", [InjectKind.CONFUSER]))}
    assert all(sorted(r.spec_id for r in run.rollouts) == ids for run in runs.values())
    with pytest.raises(StageError, match="3 rollouts, not one"):
        _ = runs["good"].trajectory_id
    judged = judge_trajectories.run(ctx, judge_trajectories.JudgeTrajectoriesParams(use_llm=False))
    q = {j.trajectory_id: j.q for j in judged.judgments}
    by = {kind: {r.spec_id: q[r.trajectory_id] for r in run.rollouts} for kind, run in runs.items()}
    for family, spec in specs.items():
        got = {kind: by[kind][spec.spec_id] for kind in by}
        assert got["good"] == pytest.approx(1.0), (family, got)
        assert got["wrong"] < 0.95, (family, got)  # one wrong figure costs its criterion's weight
        assert got["missing"] == 0.0, (family, got)  # a missing deliverable is a loss
        if spec.negative:
            assert got["confuser"] < 0.9, (family, got)  # a figure from the superseded file is penalised

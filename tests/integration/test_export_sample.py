"""The bundled sample through audit and export: K=4 oracle candidates judged by both arms, a clean audit
exports SFT, three RFT arms on one query set and rubrics; a planted benchmark copy blocks the export."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphforge.context import StageContext
from graphforge.demo.sample.benchmark import SAMPLE_NAME, plant_near_duplicate, write_benchmark_sample
from graphforge.demo.sample.workspace import generate_sample_workspace
from graphforge.errors import ExportError
from graphforge.export.reward import load_rubric_reward
from graphforge.export.verify import PLACEHOLDER, check_row, verify_file
from graphforge.models.judge import JudgeArm
from graphforge.oracle import InjectKind
from graphforge.stages import (
    admit_trajectories,
    audit_contamination,
    build_evidence,
    compile_specs,
    export_rft,
    export_rubrics,
    export_sft,
    judge_trajectories,
    load_benchmark,
    load_workspace,
    rollout_oracle,
)

pytestmark = pytest.mark.neo4j

# K = 4 candidates per spec: one correct, three with injected errors.
CANDIDATES: list[list[InjectKind]] = [
    [],
    [InjectKind.WRONG_NUMBER],
    [InjectKind.CONFUSER],
    [InjectKind.MISSING_DELIVERABLE],
]


def test_sample_audits_then_exports_and_a_planted_copy_blocks_it(ctx: StageContext, tmp_path: Path) -> None:
    sample = generate_sample_workspace(tmp_path / "sample")
    load_workspace.run(ctx, load_workspace.LoadWorkspaceParams(
        root=sample.root, manifest=sample.manifest, jobs=1, use_llm_roles=False))
    build_evidence.run(ctx, build_evidence.BuildEvidenceParams(extractor="rule-based"))
    specs = compile_specs.run(ctx, compile_specs.CompileSpecsParams(compiler="template")).specs
    for spec in specs:
        for inject in CANDIDATES:
            rollout_oracle.run(ctx, rollout_oracle.RolloutOracleParams(spec_id=spec.spec_id, inject=inject))
        # and one that asks for a wrong file name first and recovers (a failed call the replay must match)
        rollout_oracle.run(ctx, rollout_oracle.RolloutOracleParams(spec_id=spec.spec_id, slips=1.0))
    for arm in (JudgeArm.ANCHORED, JudgeArm.UNANCHORED):
        judge_trajectories.run(ctx, judge_trajectories.JudgeTrajectoriesParams(arm=arm, use_llm=False))
    admitted = admit_trajectories.run(ctx, admit_trajectories.AdmitTrajectoriesParams())
    n_admitted = sum(d.status.value == "admitted" for d in admitted.decisions)
    assert n_admitted >= 1

    bench = write_benchmark_sample(tmp_path / "bench")
    load_benchmark.run(
        ctx, load_benchmark.LoadBenchmarkParams(root=bench.root, name=SAMPLE_NAME)
    )
    audit = audit_contamination.run(
        ctx, audit_contamination.AuditContaminationParams(benchmarks=[SAMPLE_NAME])
    )
    assert not audit.found_overlaps

    out = tmp_path / "export"
    sft = export_sft.run(ctx, export_sft.ExportSftParams(out_dir=out, benchmarks=[SAMPLE_NAME]))
    assert sft.rows == n_admitted and sft.audit_id == audit.audit_id and sft.override == "none"
    arms = {
        arm: export_rft.run(ctx, export_rft.ExportRftParams(out_dir=out, arm=arm, benchmarks=[SAMPLE_NAME]))
        for arm in JudgeArm
    }
    digests = {r.selection["query_set_sha256"] for r in arms.values()}  # type: ignore[index]
    assert len(digests) == 1
    assert arms[JudgeArm.ANCHORED].rows == arms[JudgeArm.UNANCHORED].rows == arms[JudgeArm.RANDOM].rows >= 1
    # Every exported row is a replayable demonstration: re-run through the agent's tools in a fresh copy of
    # the workspace it returns what was recorded, writes the judged deliverables and gets the same Q; no row
    # carries a placeholder instead of content.
    for name in ("sft.jsonl", "rft-anchored.jsonl"):
        report = verify_file(ctx.graph, out / name)
        assert report.checked >= 1 and not report.failures, report.as_dict()
        assert not PLACEHOLDER.search((out / name).read_text()), name
    rows = [json.loads(line) for line in (out / "sft.jsonl").read_text().splitlines()]
    called = [c["function"]["name"] for r in rows for m in r["messages"] for c in m.get("tool_calls") or ()]
    assert {"list_files", "read_file"} <= set(called)
    assert any((m.get("content") or "").startswith("ERROR: no file") for r in rows for m in r["messages"]
               if m["role"] == "tool")
    # Ids as the agent loop writes them (call_0, call_1 ... anew each turn) replay the same: a call's result
    # is the one after its own turn, not the last with its id.
    renumbered = json.loads(json.dumps(rows[0]))
    ids: dict[str, str] = {}
    for m in renumbered["messages"]:
        if m["role"] == "assistant":
            ids = {c["id"]: f"call_{j}" for j, c in enumerate(m.get("tool_calls") or ())}
            for c in m.get("tool_calls") or ():
                c["id"] = ids[c["id"]]
        elif m["role"] == "tool":
            m["tool_call_id"] = ids[m["tool_call_id"]]
    assert sum(m["role"] == "tool" for m in renumbered["messages"]) > 1
    assert not check_row(ctx.graph, renumbered).problems
    # A tampered row (a read result that is not what the file holds) fails the replay.
    bad = json.loads(json.dumps(rows[0]))
    tool = next(m for m in bad["messages"] if m["role"] == "tool" and m.get("name") == "read_file")
    tool["content"] = tool["content"] + " extra"
    assert check_row(ctx.graph, bad).problems
    rub = export_rubrics.run(ctx, export_rubrics.ExportRubricsParams(out_dir=out))
    assert rub.specs == len(specs)
    reward = load_rubric_reward(out / "rubrics.jsonl")
    prompt = json.loads((out / "grpo_prompts.jsonl").read_text().splitlines()[0])
    assert reward(["nothing useful"], spec_id=[prompt["spec_id"]]) == [0.0]

    # A training file that copies a benchmark passage: the re-audit finds it and the export is refused.
    planted = tmp_path / "planted"
    plant_near_duplicate(bench.root, planted / "minutes.txt")
    load_workspace.run(ctx, load_workspace.LoadWorkspaceParams(root=planted, jobs=1, use_llm_roles=False))
    dirty = audit_contamination.run(
        ctx, audit_contamination.AuditContaminationParams(benchmarks=[SAMPLE_NAME])
    )
    assert dirty.found_overlaps
    with pytest.raises(ExportError, match="found overlaps"):
        export_sft.run(
            ctx, export_sft.ExportSftParams(out_dir=tmp_path / "refused", benchmarks=[SAMPLE_NAME])
        )
    forced = export_sft.run(
        ctx,
        export_sft.ExportSftParams(
            out_dir=tmp_path / "forced", benchmarks=[SAMPLE_NAME], allow_contaminated=True
        ),
    )
    assert forced.override == "allow-contaminated" and forced.audit_id == dirty.audit_id

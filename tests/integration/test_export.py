"""SFT / RFT export against a real Neo4j: determinism, length gate, audit gate, shared RFT queries."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from graphforge.audit import AuditRow, record_audit, training_fingerprint
from graphforge.context import StageContext
from graphforge.errors import ExportError
from graphforge.export.record import list_exports
from graphforge.graphdb.graph import Graph
from graphforge.models.judge import JudgeArm, Judgment
from graphforge.models.trajectory import FunctionCall, Message, ToolCall, Trajectory, TrajectoryStatus
from graphforge.stages import export_rft, export_sft
from graphforge.stores import trajectories as store

pytestmark = pytest.mark.neo4j

TOOLS: list[dict[str, object]] = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a workspace file.",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
            },
        },
    }
]


def audit(graph: Graph, audit_id: str, overlaps: bool, now: str) -> None:
    """Record an Audit node the way the audit stage does (its own tests cover finding overlaps)."""
    record_audit(
        graph,
        AuditRow(
            audit_id=audit_id,
            benchmarks=["gdpval-mini"],
            found_overlaps=overlaps,
            training_fingerprint=training_fingerprint(graph),
        ),
        now=now,
    )


def clean(graph: Graph) -> None:
    audit(graph, "audit-clean", False, "2030-01-01T00:00:00.000000+00:00")


def trajectory(
    tid: str,
    spec_id: str,
    *,
    filler: int = 40,
    status: TrajectoryStatus = TrajectoryStatus.ADMITTED,
    model: str = "teacher",
) -> Trajectory:
    call = ToolCall(
        id=f"{tid}-c1", function=FunctionCall(name="read_file", arguments='{"path": "ledger.csv"}')
    )
    return Trajectory(
        trajectory_id=tid,
        spec_id=spec_id,
        scaffold="oracle",
        model=model,
        tools=TOOLS,
        status=status,
        messages=[
            Message(role="system", content="You are a careful analyst."),
            Message(role="user", content=f"Reconcile the ledger for {spec_id}. " + "Détail. " * filler),
            Message(role="assistant", tool_calls=[call]),
            Message(role="tool", tool_call_id=f"{tid}-c1", name="read_file", content="a,b\n1,2"),
            Message(role="assistant", content=f"Done: total 3 ({tid})."),
        ],
        steps=2,
    )


def judgment(tid: str, spec_id: str, arm: JudgeArm, q: float, ok: bool = True) -> Judgment:
    return Judgment(
        judgment_id=f"{tid}-{arm.value}",
        trajectory_id=tid,
        spec_id=spec_id,
        judge="test-judge",
        arm=arm,
        q=q,
        deliverables_ok=ok,
    )


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def sft_params(out: Path, **kw: object) -> export_sft.ExportSftParams:
    # Hand-made trajectories with no workspace behind them: nothing to replay (test_export_sample replays).
    kw = {"out_dir": out, "benchmarks": ["gdpval-mini"], "verify": False, **kw}
    return export_sft.ExportSftParams(**kw)  # type: ignore[arg-type]


def test_sft_export_is_byte_identical_on_re_export_and_excludes_over_length(
    ctx: StageContext, graph: Graph, tmp_path: Path
) -> None:
    store.save_trajectories(
        graph,
        [
            trajectory("t03", "s1@v1"),
            trajectory("t01", "s2@v1"),
            trajectory("t02", "s1@v1", filler=2000),  # ~6k estimated tokens
            trajectory("t04", "s3@v1", status=TrajectoryStatus.REJECTED),
        ],
    )
    clean(graph)
    first = export_sft.run(ctx, sft_params(tmp_path / "a", max_tokens=2000))
    second = export_sft.run(ctx, sft_params(tmp_path / "b", max_tokens=2000))

    names = ["sft.jsonl", "sft.parquet", "sft.manifest.json"]
    assert [sha(tmp_path / "a" / n) for n in names] == [sha(tmp_path / "b" / n) for n in names]
    assert first.export_id == second.export_id
    assert (first.seen, first.rows, first.excluded_over_length) == (3, 2, 1)

    manifest = json.loads((tmp_path / "a" / "sft.manifest.json").read_text())
    assert manifest["trajectory_ids"] == ["t01", "t03"]  # stable order, rejected one left out
    assert manifest["excluded_over_length"][0]["trajectory_id"] == "t02"
    assert manifest["excluded_over_length"][0]["tokens"] > 2000
    assert manifest["spec_ids"] == ["s1@v1", "s2@v1"]
    assert manifest["audit"]["audit_id"] == "audit-clean" and manifest["audit"]["override"] == "none"
    assert manifest["tokens"]["max"] <= 2000 and manifest["counts"]["excluded_over_length"] == 1

    lines = (tmp_path / "a" / "sft.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines]
    assert [r["trajectory_id"] for r in rows] == ["t01", "t03"]
    assert rows[0]["messages"][2]["tool_calls"][0]["function"] == {
        "name": "read_file",
        "arguments": '{"path": "ledger.csv"}',
    }
    assert json.loads(rows[0]["tools"]) == TOOLS
    # The full message text survives: nothing is truncated.
    assert rows[1]["messages"][1]["content"].count("Détail.") == 40
    table = pq.read_table(tmp_path / "a" / "sft.parquet")
    assert table.column("trajectory_id").to_pylist() == ["t01", "t03"]
    assert table.column("messages").to_pylist()[0][4]["content"] == "Done: total 3 (t01)."

    exports = [e.model_dump() for e in list_exports(graph)]
    assert len(exports) == 1 and exports[0]["included"] == ["t01", "t03"]
    assert exports[0]["override"] == "none" and exports[0]["audit_id"] == "audit-clean"


def test_export_is_refused_without_an_audit_or_with_overlaps_unless_overridden(
    ctx: StageContext, graph: Graph, tmp_path: Path
) -> None:
    store.save_trajectories(graph, [trajectory("t1", "s1@v1")])
    with pytest.raises(ExportError, match="no contamination audit has run for gdpval-mini"):
        export_sft.run(ctx, sft_params(tmp_path / "x"))
    with pytest.raises(ExportError, match="--benchmark"):
        export_sft.run(ctx, export_sft.ExportSftParams(out_dir=tmp_path / "x", verify=False))
    audit(graph, "audit-dirty", True, "2030-01-01T00:00:00.000000+00:00")
    with pytest.raises(ExportError, match="audit-dirty found overlaps"):
        export_sft.run(ctx, sft_params(tmp_path / "x"))
    with pytest.raises(ExportError, match="no contamination audit has run for other-bench"):
        export_sft.run(ctx, sft_params(tmp_path / "x", benchmarks=["other-bench"], allow_contaminated=True))
    assert not (tmp_path / "x").exists() or not list((tmp_path / "x").iterdir())

    forced = export_sft.run(ctx, sft_params(tmp_path / "y", allow_contaminated=True))
    skipped = export_sft.run(ctx, export_sft.ExportSftParams(out_dir=tmp_path / "z", skip_audit=True,
                                                             verify=False))
    assert (forced.override, skipped.override) == ("allow-contaminated", "skip-audit")
    recorded = {e.export_id: e for e in list_exports(graph)}
    assert recorded[forced.export_id].override == "allow-contaminated"
    assert recorded[forced.export_id].audit_id == "audit-dirty"
    assert (
        recorded[skipped.export_id].override == "skip-audit" and recorded[skipped.export_id].audit_id is None
    )
    manifest = json.loads((tmp_path / "y" / "sft.manifest.json").read_text())
    assert (
        manifest["audit"]["found_overlaps"] is True and manifest["audit"]["override"] == "allow-contaminated"
    )

    # A later clean audit lifts the refusal; an audit over other training files (stale) does not count.
    clean(graph)
    assert export_sft.run(ctx, sft_params(tmp_path / "w")).audit_id == "audit-clean"
    record_audit(
        graph,
        AuditRow(
            audit_id="audit-stale",
            benchmarks=["gdpval-mini"],
            found_overlaps=False,
            training_fingerprint="0" * 32,
        ),
        now="2031-01-01T00:00:00.000000+00:00",
    )
    with pytest.raises(ExportError, match="changed since audit audit-stale"):
        export_sft.run(ctx, sft_params(tmp_path / "v"))


def _rft_pool(graph: Graph) -> None:
    """Five queries: q1-q3 complete with K=4; q4 has 3 candidates; q5's anchored best is 0.90."""
    trajectories: list[Trajectory] = []
    judgments: list[Judgment] = []
    table = {  # spec -> [(anchored q, unanchored q, deliverables ok)]
        "q1": [(0.97, 0.99, True), (0.99, 0.96, True), (1.0, 0.5, False), (0.2, 0.98, True)],
        "q2": [(0.96, 0.97, True), (0.50, 0.99, True), (0.40, 0.40, True), (0.30, 0.30, True)],
        "q3": [(0.99, 0.80, True), (0.98, 0.90, True), (0.97, 0.70, True), (0.10, 0.10, False)],
        "q4": [(0.99, 0.99, True), (0.98, 0.98, True), (0.97, 0.97, True)],
        "q5": [(0.90, 0.99, True), (0.80, 0.99, True), (0.70, 0.70, True), (0.60, 0.60, True)],
    }
    for spec, rows in table.items():
        for i, (qa, qu, ok) in enumerate(rows):
            tid = f"{spec}-r{i}"
            trajectories.append(
                trajectory(tid, f"{spec}@v1", status=TrajectoryStatus.JUDGED, model="sft-model")
            )
            judgments += [
                judgment(tid, f"{spec}@v1", JudgeArm.ANCHORED, qa, ok),
                judgment(tid, f"{spec}@v1", JudgeArm.UNANCHORED, qu, ok),
            ]
    store.save_trajectories(graph, trajectories)
    store.save_judgments(graph, judgments)


def test_rft_arms_share_the_same_queries_and_pick_by_their_own_rule(
    ctx: StageContext, graph: Graph, tmp_path: Path
) -> None:
    _rft_pool(graph)
    clean(graph)
    results = {
        arm: export_rft.run(
            ctx, export_rft.ExportRftParams(out_dir=tmp_path, arm=arm, benchmarks=["gdpval-mini"],
                                                verify=False)
        )
        for arm in JudgeArm
    }
    manifests = {
        arm: json.loads((tmp_path / f"rft-{arm.value}.manifest.json").read_text()) for arm in JudgeArm
    }
    queries = {arm: m["selection"]["queries"] for arm, m in manifests.items()}
    assert queries[JudgeArm.ANCHORED] == ["q1@v1", "q2@v1", "q3@v1"]
    assert queries[JudgeArm.UNANCHORED] == queries[JudgeArm.ANCHORED] == queries[JudgeArm.RANDOM]
    assert len({r.selection["query_set_sha256"] for r in results.values()}) == 1  # type: ignore[index]
    assert manifests[JudgeArm.ANCHORED]["selection"]["queries_under_k"] == ["q4@v1"]
    assert manifests[JudgeArm.ANCHORED]["selection"]["queries_below_threshold"] == ["q5@v1"]

    # Anchored: q1-r2 has Q 1.0 but failed its deliverable checks, so q1-r1 (0.99) wins.
    assert manifests[JudgeArm.ANCHORED]["trajectory_ids"] == ["q1-r1", "q2-r0", "q3-r0"]
    assert manifests[JudgeArm.UNANCHORED]["trajectory_ids"] == ["q1-r0", "q2-r1", "q3-r1"]
    random_ids = manifests[JudgeArm.RANDOM]["trajectory_ids"]
    assert len(random_ids) == 3 and {t.split("-")[0] for t in random_ids} == {"q1", "q2", "q3"}
    assert "q1-r2" not in random_ids and "q3-r3" not in random_ids  # invalid candidates never picked

    rows = [json.loads(line) for line in (tmp_path / "rft-anchored.jsonl").read_text().splitlines()]
    assert [(r["arm"], r["q"]) for r in rows] == [("anchored", 0.99), ("anchored", 0.96), ("anchored", 0.99)]
    again = export_rft.run(
        ctx,
        export_rft.ExportRftParams(
            out_dir=tmp_path / "again", arm=JudgeArm.RANDOM, benchmarks=["gdpval-mini"], verify=False
        ),
    )
    assert sha(tmp_path / "again" / "rft-random.jsonl") == sha(tmp_path / "rft-random.jsonl")
    assert again.export_id == results[JudgeArm.RANDOM].export_id
    included = {r["export_id"]: r["included"] for r in [e.model_dump() for e in list_exports(graph)]}
    assert included[results[JudgeArm.UNANCHORED].export_id] == ["q1-r0", "q2-r1", "q3-r1"]


def test_rubrics_export_serves_the_grpo_reward_without_neo4j(
    ctx: StageContext, graph: Graph, tmp_path: Path
) -> None:
    from graphforge.export.reward import load_rubric_reward
    from graphforge.models.spec import (
        CriterionKind,
        CriterionSpec,
        DeliverableSpec,
        Polarity,
        TaskSpec,
        statement_hash,
    )
    from graphforge.stages import export_rubrics
    from graphforge.stores import specs as specs_store

    statement = "Total the Q3 ledger and write total.md."
    spec = TaskSpec(
        spec_id="ledger@v1",
        base_id="ledger",
        version=1,
        workspace_id="w1",
        statement=statement,
        statement_hash=statement_hash(statement),
        compiler="template",
        deliverables=[DeliverableSpec(deliverable_id="ledger@v1/total.md", name="total.md", format="md")],
        criteria=[
            CriterionSpec(
                criterion_id="ledger@v1/c1",
                polarity=Polarity.POSITIVE,
                kind=CriterionKind.VALUE,
                weight=1.0,
                requirement="States the Q3 total.",
                target_deliverable="total.md",
                expected_value=4812.5,
                verification="Recompute from the ledger rows.",
            )
        ],
    )
    specs_store.save_spec(graph, spec)
    result = export_rubrics.run(ctx, export_rubrics.ExportRubricsParams(out_dir=tmp_path))
    assert (result.specs, result.criteria) == (1, 1)
    again = export_rubrics.run(ctx, export_rubrics.ExportRubricsParams(out_dir=tmp_path / "again"))
    assert [f.sha256 for f in again.files] == [f.sha256 for f in result.files]

    prompts = [json.loads(line) for line in (tmp_path / "grpo_prompts.jsonl").read_text().splitlines()]
    assert prompts == [{"prompt": [{"role": "user", "content": statement}], "spec_id": "ledger@v1"}]
    reward = load_rubric_reward(tmp_path / "rubrics.jsonl")
    completions = [
        [{"role": "assistant", "content": "Wrote total.md: the Q3 total is 4,812.50."}],
        [{"role": "assistant", "content": "Wrote total.md: the Q3 total is 4,000."}],
    ]
    assert reward(completions, spec_id=["ledger@v1"] * 2) == [1.0, 0.0]

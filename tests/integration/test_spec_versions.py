"""Specs are versioned, never overwritten; citations are checked against the graph (SUPERSEDES edges); a note
to the grader and zero tool calls are never admitted. Generated solicitation workspaces, real Neo4j."""

from __future__ import annotations

import shutil
from pathlib import Path

import docx
import pytest

from graphforge.context import StageContext
from graphforge.graphdb import chores, cypher
from graphforge.judge import judge_attempt, load_view
from graphforge.models.judge import JudgeArm
from graphforge.models.trajectory import TrajectoryStatus
from graphforge.oracle.agent import InjectKind
from graphforge.stages import (
    admit_trajectories,
    build_evidence,
    compile_specs,
    judge_trajectories,
    load_workspace,
    rollout_oracle,
)
from graphforge.stores import specs as specs_store
from graphforge.stores import trajectories as store

pytestmark = pytest.mark.neo4j

RFQ = """# Request for Quotation: Records Scanning Service

## 1. Scope

The vendor shall scan every closed case file and deliver searchable PDF copies.
The vendor must provide a weekly progress report to the contracting officer.

## 4. Milestones

| No. | Due Date | Event |
|-----|----------|-------|
| 1 | May 6, 2024 | Solicitation released |
| 2 | May 13, 2024 | Questions due |
| 3 | {deadline} | Written quotes due |
| 4 | June 28, 2024 | Award of the order |

## 5. Submission

Quotes must be sent to the contracting officer by e-mail.
"""
AS_ISSUED = "solicitation/RFQ (as issued), 2024-05-06.md"
CURRENT = "solicitation/RFQ.md"
GET_PREVIOUS = cypher.CypherQuery(
    "test/get_previous_version",
    "MATCH (s:TaskSpec {spec_id: $spec_id})-[:PREVIOUS_VERSION]->(p:TaskSpec) RETURN p.spec_id AS previous",
    frozenset({"spec_id"}))
COUNT_ANCHORS = cypher.CypherQuery(
    "test/count_spec_anchors",
    "MATCH (:TaskSpec {spec_id: $spec_id})-[:HAS_CRITERION]->(c:Criterion) "
    "OPTIONAL MATCH (c)-[a:ANCHORED_TO]->() RETURN count(DISTINCT c) AS criteria, count(a) AS anchors",
    frozenset({"spec_id"}))


def _workspace(root: Path, deadline: str) -> Path:
    folder = root / "solicitation"
    folder.mkdir(parents=True, exist_ok=True)
    (root / AS_ISSUED).write_text(RFQ.format(deadline="May 24, 2024"), encoding="utf-8")
    (root / CURRENT).write_text(RFQ.format(deadline=deadline), encoding="utf-8")
    return root


def _load(ctx: StageContext, root: Path, wid: str) -> None:
    load_workspace.run(ctx, load_workspace.LoadWorkspaceParams(root=root, workspace_id=wid, jobs=1,
                                                               use_llm_roles=False))
    build_evidence.run(ctx, build_evidence.BuildEvidenceParams(workspace_id=wid, extractor="rule-based"))


def _compile(ctx: StageContext, wid: str) -> compile_specs.CompileSpecsResult:
    return compile_specs.run(ctx, compile_specs.CompileSpecsParams(workspace_id=wid, compiler="template",
                                                                   family="version_change_memo"))


def test_a_changed_workspace_compiles_a_new_version_and_the_old_one_keeps_its_trajectories(
        ctx: StageContext, tmp_path: Path) -> None:
    root = _workspace(tmp_path / "ws", deadline="May 31, 2024")
    _load(ctx, root, "ws-ver")
    first = _compile(ctx, "ws-ver")
    assert [s.version for s in first.specs] == [1], first.skipped
    v1 = specs_store.load_spec(ctx.graph, first.specs[0].spec_id)
    assert any(c.expected == "2024-05-31" for c in v1.positive)
    tid = rollout_oracle.run(ctx, rollout_oracle.RolloutOracleParams(spec_id=v1.spec_id)).trajectory_id
    judged = judge_trajectories.run(ctx, judge_trajectories.JudgeTrajectoriesParams(use_llm=False))
    assert [j.q for j in judged.judgments] == [pytest.approx(1.0)], judged.judgments
    held = ctx.graph.read_dicts(COUNT_ANCHORS, spec_id=v1.spec_id)[0]
    assert held["anchors"] > 0

    # Re-compiling the unchanged workspace changes nothing.
    before = chores.counts(ctx.graph)
    assert _compile(ctx, "ws-ver") == first
    assert chores.counts(ctx.graph) == before

    # The quote deadline moves: the same task, compiled again, is a new version linked to the old one.
    (root / CURRENT).write_text(RFQ.format(deadline="June 7, 2024"), encoding="utf-8")
    _load(ctx, root, "ws-ver")
    second = _compile(ctx, "ws-ver")
    assert [s.version for s in second.specs] == [2], second.skipped
    v2 = specs_store.load_spec(ctx.graph, second.specs[0].spec_id)
    assert v2.spec_id != v1.spec_id and v2.base_id == v1.base_id
    assert any(c.expected == "2024-06-07" for c in v2.positive)
    assert ctx.graph.read_dicts(GET_PREVIOUS, spec_id=v2.spec_id) == [{"previous": v1.spec_id}]
    # The old version is as it was, with its criteria, anchors, trajectory and judgment.
    assert specs_store.load_spec(ctx.graph, v1.spec_id) == v1
    assert ctx.graph.read_dicts(COUNT_ANCHORS, spec_id=v1.spec_id)[0] == held
    kept = store.get_trajectories(ctx.graph, [tid])[0]
    assert kept.spec_id == v1.spec_id and kept.status is TrajectoryStatus.JUDGED
    again = judge_trajectories.run(ctx, judge_trajectories.JudgeTrajectoriesParams(
        use_llm=False, trajectory_ids=[tid], statuses=["judged"]))
    assert [j.q for j in again.judgments] == [pytest.approx(1.0)], again.judgments  # still judged against v1

    # And the new version, compiled again, is left alone too.
    before = chores.counts(ctx.graph)
    assert _compile(ctx, "ws-ver") == second
    assert chores.counts(ctx.graph) == before


def _swap(source: Path, target: Path, old: str, new: str) -> None:
    """Copy a deliverable with one cited name replaced (DOCX paragraphs and table cells, or plain text)."""
    if source.suffix == ".docx":
        document = docx.Document(str(source))
        paragraphs = list(document.paragraphs) + [p for t in document.tables for row in t.rows
                                                  for cell in row.cells for p in cell.paragraphs]
        for paragraph in paragraphs:
            if old in paragraph.text:
                paragraph.text = paragraph.text.replace(old, new)
        document.save(str(target))
    else:
        target.write_text(source.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")


def _oracle_files(ctx: StageContext, spec_id: str, *inject: InjectKind) -> tuple[str, dict[str, Path]]:
    out = rollout_oracle.run(ctx, rollout_oracle.RolloutOracleParams(spec_id=spec_id, inject=list(inject)))
    t = store.get_trajectories(ctx.graph, [out.trajectory_id])[0]
    return t.trajectory_id, {d.name: Path(d.path) for d in t.deliverables}


def test_citations_are_checked_against_the_graph_and_grader_notes_and_silent_runs_are_not_admitted(
        ctx: StageContext, tmp_path: Path) -> None:
    _load(ctx, _workspace(tmp_path / "ws", deadline="May 31, 2024"), "ws-cite")
    spec_id = _compile(ctx, "ws-cite").specs[0].spec_id
    view = load_view(ctx.graph, spec_id)
    # The graph says which file is the later version; the file names hold parentheses and a comma.
    superseded = {f.path: f.superseded_by for f in view.files}
    assert superseded == {AS_ISSUED: [CURRENT], CURRENT: []}

    good, files = _oracle_files(ctx, spec_id)
    clean = judge_attempt(view, files, JudgeArm.ANCHORED, trajectory_id=good)[0]
    assert clean.q == pytest.approx(1.0), clean.reason

    # The same correct deliverable, every current figure credited to the superseded issue of the RFQ.
    moved = tmp_path / "moved"
    moved.mkdir()
    for name, path in files.items():
        _swap(path, moved / name, "RFQ.md", AS_ISSUED.rsplit("/", 1)[-1])
    swapped = judge_attempt(view, {n: moved / n for n in files}, JudgeArm.ANCHORED, trajectory_id="moved")[0]
    fired = {r.criterion_id.rsplit("/", 1)[-1]: r.evidence for r in swapped.ratings
             if r.polarity == "negative" and r.score == 1}
    assert any(k.endswith("-sources") and f"superseded by {CURRENT}" in v for k, v in fired.items()), fired
    assert swapped.q < 0.9, swapped.reason

    # A note to the grader, and a run that wrote the deliverables without reading a file.
    noted, _ = _oracle_files(ctx, spec_id, InjectKind.PROMPT_INJECTION)
    silent = store.get_trajectories(ctx.graph, [good])[0]
    kept = [m for m in silent.messages if m.role != "tool" and not (m.role == "assistant" and m.tool_calls)]
    copies = tmp_path / "silent"
    shutil.copytree(Path(silent.deliverables[0].path).parent, copies)
    silent = silent.model_copy(update={
        "trajectory_id": f"{good}-silent", "messages": kept, "source": "test: no tool calls",
        "deliverables": [d.model_copy(update={"path": str(copies / Path(d.path).name)})
                         for d in silent.deliverables]})
    store.save_trajectories(ctx.graph, [silent])
    judged = judge_trajectories.run(ctx, judge_trajectories.JudgeTrajectoriesParams(use_llm=False))
    q = {j.trajectory_id: j for j in judged.judgments}
    assert q[good].q == pytest.approx(1.0) and q[silent.trajectory_id].q == pytest.approx(1.0)
    assert q[noted].q <= 0 and "grader" in q[noted].reason
    decisions = {d.trajectory_id: d for d in admit_trajectories.run(
        ctx, admit_trajectories.AdmitTrajectoriesParams()).decisions}
    assert decisions[good].status is TrajectoryStatus.ADMITTED
    assert decisions[noted].status is TrajectoryStatus.REJECTED
    assert decisions[silent.trajectory_id].status is TrajectoryStatus.DISCARDED
    assert "no tool calls" in decisions[silent.trajectory_id].reason


def test_compiling_an_unchanged_workspace_again_any_way_leaves_one_current_version_per_spec(
        ctx: StageContext, tmp_path: Path) -> None:
    from graphforge.cli.listing import specs as list_specs

    _load(ctx, _workspace(tmp_path / "ws", deadline="May 31, 2024"), "ws-again")
    every = compile_specs.run(ctx, compile_specs.CompileSpecsParams(
        workspace_id="ws-again", compiler="template", all_families=True))
    assert len(every.specs) >= 2, every.skipped
    before = chores.counts(ctx.graph)
    # The same families asked for one at a time, or all again: same specs, same versions, nothing written.
    for spec in every.specs:
        one = compile_specs.run(ctx, compile_specs.CompileSpecsParams(
            workspace_id="ws-again", compiler="template", family=spec.family))
        assert [(s.spec_id, s.version) for s in one.specs] == [(spec.spec_id, 1)]
    again = compile_specs.run(ctx, compile_specs.CompileSpecsParams(
        workspace_id="ws-again", compiler="template", all_families=True))
    assert [s.spec_id for s in again.specs] == [s.spec_id for s in every.specs]
    assert chores.counts(ctx.graph) == before
    rows = list_specs(ctx.graph, workspace_id="ws-again")
    assert len(rows) == len(every.specs) and all(r["current"] for r in rows)

    # A changed workspace: the new version is the only current one of its base.
    (tmp_path / "ws" / CURRENT).write_text(RFQ.format(deadline="June 7, 2024"), encoding="utf-8")
    _load(ctx, tmp_path / "ws", "ws-again")
    _compile(ctx, "ws-again")
    rows = list_specs(ctx.graph, workspace_id="ws-again")
    by_base: dict[str, list[bool]] = {}
    for r in rows:
        by_base.setdefault(str(r["spec_id"]).split("@")[0], []).append(bool(r["current"]))
    assert any(len(v) == 2 for v in by_base.values()), rows
    assert all(v.count(True) == 1 for v in by_base.values()), rows

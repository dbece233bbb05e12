"""Two shards running at the same time against one Neo4j build the same graph as one unsharded run.

Each stage runs as real CLI processes (``python -m graphforge ... --shard i/2``), both shards started
together, so their writes interleave in one database; the graph they leave (node and relationship counts,
every node's natural key with its main value, every relationship's type and end keys) must equal the one
a single process leaves from the same workspaces.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from collections import Counter
from pathlib import Path

import pytest

from graphforge import db
from graphforge.context import StageContext
from graphforge.demo.sample.workspace import generate_sample_workspace
from graphforge.sharding import Shard, shard_of
from graphforge.stages import load_workspace

pytestmark = pytest.mark.neo4j
REPO = Path(__file__).resolve().parents[2]
WORKSPACES = [f"ws-shard-{n}" for n in range(6)]
KEY = ("coalesce(n.fact_id, n.spec_id, n.trajectory_id, n.criterion_id, n.deliverable_id, n.judgment_id, "
       "n.workspace_id, n.span_id, n.sha256, n.seed_id, n.evidence_id, n.attempt_id, n.name, n.code)")
NODES = f"""
MATCH (n) WHERE NOT n:__GraphforgeMigration
RETURN labels(n) AS labels, {KEY} AS key, [n.q, n.status, n.value, n.statement_hash, n.weight] AS value
"""
RELATIONSHIPS = f"""
MATCH (a)-[r]->(n) WHERE NOT a:__GraphforgeMigration
WITH a, r, {KEY} AS end_key
RETURN type(r) AS type, {KEY.replace('n.', 'a.')} AS start_key, end_key, r.kind AS kind
"""


def _rows(ctx: StageContext, text: str) -> list[dict[str, object]]:
    return [r.data() for r in ctx.graph.driver.execute_query(text, database_=ctx.graph.database).records]


def _fingerprint(ctx: StageContext) -> tuple[object, Counter[str], Counter[str]]:
    nodes = Counter(json.dumps([sorted(r["labels"]), r["key"], r["value"]], default=str)  # type: ignore[arg-type]
                    for r in _rows(ctx, NODES))
    rels = Counter(json.dumps([r["type"], r["start_key"], r["end_key"], r["kind"]], default=str)
                   for r in _rows(ctx, RELATIONSHIPS))
    return db.counts(ctx.graph), nodes, rels


def _diff(a: Counter[str], b: Counter[str]) -> tuple[list[str], list[str]]:
    return sorted((a - b).elements())[:5], sorted((b - a).elements())[:5]


def _workspaces(root: Path) -> list[Path]:
    """Copies of the sample workspace, every file's bytes unique to its copy (a zip comment, a trailer)."""
    sample = generate_sample_workspace(root / "sample")
    out = []
    for n, _ in enumerate(WORKSPACES):
        copy = root / f"copy{n}"
        for src in sample.root.rglob("*"):
            if not src.is_file():
                continue
            dst = copy / src.relative_to(sample.root)
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_bytes(src.read_bytes())
            if src.name == "manifest.json":
                continue
            if dst.suffix in {".xlsx", ".docx", ".pptx"}:
                with zipfile.ZipFile(dst, "a") as zf:
                    zf.comment = f"copy {n}".encode()
            elif dst.suffix == ".pdf":
                dst.write_bytes(dst.read_bytes() + f"\n% copy {n}\n%%EOF\n".encode())
            else:
                dst.write_text(dst.read_text(encoding="utf-8") + f"\ncopy {n}\n", encoding="utf-8")
        out.append(copy)
    return out


def _load(ctx: StageContext, copies: list[Path]) -> None:
    for workspace_id, copy in zip(WORKSPACES, copies, strict=True):
        load_workspace.run(ctx, load_workspace.LoadWorkspaceParams(
            root=copy, workspace_id=workspace_id, jobs=1, use_llm_roles=False))


STAGES = [
    ["evidence", "build", "--extractor", "rule-based"],
    ["specs", "compile", "--compiler", "template"],
    ["rollout", "oracle"],
    ["rollout", "oracle", "--inject", "wrong_number"],
    ["judge", "--no-llm"],
]


def _run(args: list[str], out: Path, shards: int) -> list[dict[str, object]]:
    """Run one stage as ``shards`` CLI processes started together (1: unsharded); their JSON results."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHFORGE_LLM_")}
    extra = ["--out", str(out)] if args[0] == "rollout" else []
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "graphforge", *args, *extra, "--json",
             *([] if shards == 1 else ["--shard", f"{i}/{shards}"])],
            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for i in range(shards)
    ]
    results = []
    for proc in procs:
        stdout, stderr = proc.communicate(timeout=900)
        assert proc.returncode == 0, f"{args} failed: {stderr[-2000:]}"
        results.append(json.loads(stdout))
    return results


def test_two_concurrent_shards_build_the_same_graph_as_one_run(ctx: StageContext, tmp_path: Path) -> None:
    owners = {w: shard_of(w, 2) for w in WORKSPACES}
    assert set(owners.values()) == {0, 1}, "both shards must own workspaces for the test to mean anything"
    copies = _workspaces(tmp_path / "ws")

    _load(ctx, copies)
    for args in STAGES:
        _run(args, tmp_path / "single", 1)
    single = _fingerprint(ctx)

    db.delete_data(ctx.graph)
    _load(ctx, copies)
    per_stage = {" ".join(args): _run(args, tmp_path / "sharded", 2) for args in STAGES}
    sharded = _fingerprint(ctx)

    # Each shard did its own part and only that: workspaces by workspace id, judgments by spec id.
    evidence = per_stage["evidence build --extractor rule-based"]
    built = [[w["workspace_id"] for w in r["workspaces"]] for r in evidence]  # type: ignore[attr-defined]
    assert [sorted(b) for b in built] == [sorted(w for w, s in owners.items() if s == i) for i in (0, 1)]
    judged = [{j["spec_id"] for j in r["judgments"]} for r in per_stage["judge --no-llm"]]
    assert judged[0] and judged[1] and not judged[0] & judged[1]
    assert all(Shard(index=i, count=2).owns(s) for i in (0, 1) for s in judged[i])

    counts, nodes, rels = single
    assert counts.nodes["Fact"] > 0 and counts.nodes["TaskSpec"] == len(WORKSPACES)
    assert counts.nodes["Trajectory"] == counts.nodes["Judgment"] == 2 * len(WORKSPACES)
    assert sharded[0] == counts
    assert sharded[1] == nodes, f"nodes only sharded / only single: {_diff(sharded[1], nodes)}"
    assert sharded[2] == rels, f"relationships only sharded / only single: {_diff(sharded[2], rels)}"

    # A shard re-run (after a crash, on another machine) adds nothing.
    _run(STAGES[0], tmp_path / "sharded", 1)
    _run(["judge", "--no-llm", "--shard", "1/2"], tmp_path / "sharded", 1)
    assert _fingerprint(ctx) == sharded

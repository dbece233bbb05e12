"""Two shards running at the same time against one Neo4j build the same graph as one unsharded run.

Each stage runs as real CLI processes (``python -m graphforge ... --shard i/2``), both shards started
together, so their writes interleave in one database; the graph they leave (node and relationship counts,
every node's natural key with its main value, every relationship's type and end keys) must equal the one
a single process leaves from the same workspaces. The chat-model stages (rollout run, revise) talk to the
scripted OpenAI-compatible server, whose answers depend only on the request, so both runs get the same.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import uuid
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from graphforge.context import StageContext
from graphforge.demo.sample.workspace import generate_sample_workspace
from graphforge.graphdb import chores
from graphforge.sharding import Shard, shard_of
from tests.support.llm_fixtures import TEST_API_KEY
from tests.support.llm_server import RecordedRequest, Reply, ScriptedLLMServer, json_answer, text, tool_calls

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


def _rows(ctx: StageContext, text: str) -> list[dict[str, Any]]:
    return [r.data() for r in ctx.graph.driver.execute_query(text, database_=ctx.graph.database).records]


def _fingerprint(ctx: StageContext) -> tuple[chores.GraphCounts, Counter[str], Counter[str]]:
    nodes = Counter(json.dumps([sorted(r["labels"]), r["key"], r["value"]], default=str)
                    for r in _rows(ctx, NODES))
    rels = Counter(json.dumps([r["type"], r["start_key"], r["end_key"], r["kind"]], default=str)
                   for r in _rows(ctx, RELATIONSHIPS))
    return chores.counts(ctx.graph), nodes, rels


def _diff(a: Counter[str], b: Counter[str]) -> tuple[list[str], list[str]]:
    return sorted((a - b).elements())[:5], sorted((b - a).elements())[:5]


def _workspaces(root: Path) -> Path:
    """A folder of copies of the sample workspace, each with its id in its manifest and every file's bytes
    unique to its copy (a zip comment, a trailer); ``load workspaces`` takes the folder."""
    sample = generate_sample_workspace(root / "sample")
    parent = root / "parent"
    for n, workspace_id in enumerate(WORKSPACES):
        copy = parent / f"copy{n}"
        for src in sample.root.rglob("*"):
            if not src.is_file():
                continue
            dst = copy / src.relative_to(sample.root)
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_bytes(src.read_bytes())
            if src.name == "manifest.json":
                manifest = json.loads(src.read_text(encoding="utf-8"))
                manifest["workspace"]["id"] = workspace_id
                dst.write_text(json.dumps(manifest), encoding="utf-8")
                continue
            if dst.suffix in {".xlsx", ".docx", ".pptx"}:
                with zipfile.ZipFile(dst, "a") as zf:
                    zf.comment = f"copy {n}".encode()
            elif dst.suffix == ".pdf":
                dst.write_bytes(dst.read_bytes() + f"\n% copy {n}\n%%EOF\n".encode())
            else:
                dst.write_text(dst.read_text(encoding="utf-8") + f"\ncopy {n}\n", encoding="utf-8")
    return parent


LOAD = ["load", "workspaces", "--rule-roles", "--jobs", "1"]  # + the parent folder
STAGES = [
    ["evidence", "build", "--extractor", "rule-based"],
    ["specs", "compile", "--compiler", "template", "--best-family"],  # one spec per workspace
    ["rollout", "oracle"],
    ["rollout", "oracle", "--inject", "wrong_number"],
    ["rollout", "run", "--n", "2"],  # the chat model in the agent loop, every current spec
    ["revise"],  # the chat model revises; a changed statement is re-run by the teacher (the chat model)
    ["judge", "--no-llm"],
]


def _answer(request: RecordedRequest) -> Reply:
    """The chat model, as a function of the request alone: the agent writes every deliverable its task names
    and stops; the reviser rewrites the statement of some specs (so their rollouts re-run) and one
    criterion's procedure of the others (so their rollouts are reused)."""
    if request.body.get("tools"):
        if request.last_message.get("role") == "tool":
            return text("Done.")
        task = next(str(m["content"]) for m in request.messages if m.get("role") == "user")
        names = re.findall(r"^- (.+)$", task.split("Deliverables to write:")[-1], flags=re.MULTILINE)
        body = "Each figure with its source.\n"
        return tool_calls(*[("write_file", {"path": name, "content": f"# {name}\n{body}"}) for name in names])
    content = "\n".join(str(m.get("content")) for m in request.messages)
    found = re.search(r"^- (\S+)/([^/\s]+) \[", content, flags=re.MULTILINE)
    assert found, "the reviser's prompt lists the criteria"
    spec_id, criterion_id = found[1], f"{found[1]}/{found[2]}"
    if hashlib.sha256(spec_id.encode()).digest()[-1] % 2:
        statement = ("Prepare each deliverable listed below from the workspace files and name the file "
                     "every figure comes from.")
        return json_answer({"statement": statement, "criteria": [], "drop": []})
    return json_answer({"criteria": [{"criterion_id": criterion_id, "verification": "Compare the figure at "
                                      "the target location with the source figure."}], "drop": []})


def _run(args: list[str], out: Path, shards: int, llm: ScriptedLLMServer | None = None,
         model: str = "") -> list[dict[str, Any]]:
    """Run one stage as ``shards`` CLI processes started together (1: unsharded); their JSON results."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHFORGE_LLM_")}
    if llm is not None and (args[:2] == ["rollout", "run"] or args[0] == "revise"):
        env |= {"GRAPHFORGE_LLM_BASE_URL": llm.url, "GRAPHFORGE_LLM_MODEL": model,
                "GRAPHFORGE_LLM_API_KEY": TEST_API_KEY}
    extra = ["--out", str(out)] if args[:2] == ["rollout", "oracle"] or args[0] == "revise" else []
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


def test_two_concurrent_shards_build_the_same_graph_as_one_run(
        ctx: StageContext, tmp_path: Path, scripted_llm: ScriptedLLMServer) -> None:
    owners = {w: shard_of(w, 2) for w in WORKSPACES}
    assert set(owners.values()) == {0, 1}, "both shards must own workspaces for the test to mean anything"
    parent = _workspaces(tmp_path / "ws")
    scripted_llm.responder = _answer
    load = [*LOAD, str(parent)]

    # One process: load every workspace, then each stage; a fresh model name keeps the response caches apart.
    loaded_single = _run(load, tmp_path / "single", 1)
    single_load = _fingerprint(ctx)
    run_tag = uuid.uuid4().hex[:8]  # response caches outlive a test session: a name no earlier run used
    single_results = {" ".join(args): _run(args, tmp_path / "single", 1, scripted_llm, f"single-{run_tag}")
                      for args in STAGES}
    single = _fingerprint(ctx)
    calls_single = len(scripted_llm.chat_requests)

    chores.delete_data(ctx.graph)
    loaded = _run(load, tmp_path / "sharded", 2)
    assert _fingerprint(ctx) == single_load
    per_stage = {" ".join(args): _run(args, tmp_path / "sharded", 2, scripted_llm, f"sharded-{run_tag}")
                 for args in STAGES}
    sharded = _fingerprint(ctx)

    # Each shard did its own part and only that: workspaces by workspace id (loading and evidence), rollouts
    # by spec id with all K samples, judgments by the spec id of their trajectory, revisions by base id.
    mine = [sorted(w for w, s in owners.items() if s == i) for i in (0, 1)]
    assert [sorted(w["workspace_id"] for w in r["workspaces"]) for r in loaded] == mine
    assert [(r["loaded"], r["failed"], r["other_shards"]) for r in loaded] == [
        (len(m), 0, len(WORKSPACES) - len(m)) for m in mine]
    assert loaded_single[0]["loaded"] == len(WORKSPACES)
    evidence = per_stage["evidence build --extractor rule-based"]
    built = [[w["workspace_id"] for w in r["workspaces"]] for r in evidence]
    assert [sorted(b) for b in built] == mine
    judged = [{j["spec_id"] for j in r["judgments"]} for r in per_stage["judge --no-llm"]]
    assert judged[0] and judged[1] and not judged[0] & judged[1]
    assert all(Shard(index=i, count=2).owns(s) for i in (0, 1) for s in judged[i])
    rolled = [r["spec_ids"] for r in per_stage["rollout run --n 2"]]
    assert rolled[0] and rolled[1] and sorted(rolled[0] + rolled[1]) == sorted(
        single_results["rollout run --n 2"][0]["spec_ids"])
    assert all(Shard(index=i, count=2).owns(s) for i in (0, 1) for s in rolled[i])
    for r in per_stage["rollout run --n 2"]:
        assert sorted(t["trajectory_id"] for t in r["rollouts"]) == sorted(
            f"{s}/loop-{k}" for s in r["spec_ids"] for k in range(2))
    revised = [[x["spec_id"] for x in r["specs"]] for r in per_stage["revise"]]
    assert revised[0] and revised[1] and sorted(revised[0] + revised[1]) == sorted(rolled[0] + rolled[1])
    assert all(Shard(index=i, count=2).owns(s.rsplit("@", 1)[0]) for i in (0, 1) for s in revised[i])

    counts, nodes, rels = single
    assert counts.nodes["Fact"] > 0
    assert counts.nodes["Judgment"] == single_results["judge --no-llm"][0]["judged"] > 2 * len(WORKSPACES)
    # Every spec was revised; half had their statement changed (teacher re-runs), half were reused.
    revise = single_results["revise"][0]
    assert revise["revised"] == len(WORKSPACES) and counts.nodes["TaskSpec"] == 2 * len(WORKSPACES)
    assert revise["rerun"] and revise["reused"] and revise["fallbacks"] == 0
    rollout = single_results["rollout run --n 2"][0]
    assert rollout["materialised"] == 2 * len(WORKSPACES)
    # Oracle (2), loop (2) per spec, then per revised spec 4 reused or 4 re-run by the teacher.
    assert counts.nodes["Trajectory"] == 8 * len(WORKSPACES)
    assert len(scripted_llm.chat_requests) == 2 * calls_single  # the sharded run asked the model itself
    assert sharded[0] == counts
    assert sharded[1] == nodes, f"nodes only sharded / only single: {_diff(sharded[1], nodes)}"
    assert sharded[2] == rels, f"relationships only sharded / only single: {_diff(sharded[2], rels)}"

    # A shard re-run (after a crash, on another machine) adds nothing.
    _run(STAGES[0], tmp_path / "sharded", 1)
    _run(["judge", "--no-llm", "--shard", "1/2"], tmp_path / "sharded", 1)
    [again] = _run([*load, "--shard", "1/2"], tmp_path / "sharded", 1)
    assert again["loaded"] == len(mine[1]) and not any(
        w["parsed"] for w in again["workspaces"])
    # (Named: after revise the current specs are the new versions, which it never rolled out.)
    named = [arg for spec_id in rolled[0] for arg in ("--spec", spec_id)]
    [resumed] = _run(["rollout", "run", "--n", "2", "--shard", "0/2", *named], tmp_path / "sharded", 1,
                     scripted_llm, "scripted-sharded")
    assert resumed["rollouts"] == [] and len(resumed["skipped"]) == 2 * len(rolled[0])
    assert _fingerprint(ctx) == sharded

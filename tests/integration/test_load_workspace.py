"""Workspace ingestion against a real Neo4j: broken files recorded, re-runs idempotent, kill -9 resumable."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from graphforge.context import StageContext
from graphforge.demo.sample.workspace import (
    PATHS,
    WORKSPACE_ID,
    generate_broken_files,
    generate_sample_workspace,
)
from graphforge.graphdb.graph import Graph
from graphforge.settings import GraphforgeSettings
from graphforge.stages import load_workspace

pytestmark = pytest.mark.neo4j

REPO = Path(__file__).resolve().parents[2]


def _make_workspace(tmp_path: Path) -> tuple[Path, dict[str, str], int, float]:
    """Sample case with the broken-files folder inside it, as one workspace."""
    sample = generate_sample_workspace(tmp_path)
    broken = generate_broken_files(sample.root / "broken")
    return sample.root, broken.expected_reasons, broken.max_file_bytes, broken.timeout_s


def _query(graph: Graph, text: str, **params: Any) -> list[dict[str, Any]]:
    records, _, _ = graph.driver.execute_query(text, params, database_=graph.database)
    return [r.data() for r in records]


def _snapshot(graph: Graph) -> dict[str, Any]:
    """Counts and the full key sets of what ingestion writes."""
    return {
        "labels": _query(graph, "MATCH (n) UNWIND labels(n) AS l RETURN l, count(*) AS c ORDER BY l"),
        "rels": _query(graph, "MATCH ()-[r]->() RETURN type(r) AS t, count(*) AS c ORDER BY t"),
        "files": _query(
            graph,
            "MATCH (f:File) RETURN f.sha256 AS k, f.valid AS v, f.invalid_reason AS r, "
            "f.span_count AS n, f.ingested AS i ORDER BY k",
        ),
        "spans": [
            r["k"]
            for r in _query(
                graph, "MATCH (:File)-[:HAS_SPAN]->(s:Span) RETURN s.span_id AS k, s.text AS t ORDER BY k"
            )
        ],
        "contains": _query(
            graph,
            "MATCH (w:Workspace)-[c:CONTAINS]->(f:File) RETURN w.workspace_id AS w, c.path AS p, "
            "c.role AS role, c.role_source AS src, f.sha256 AS k ORDER BY p",
        ),
    }


def test_sample_plus_broken_files_ingest_records_every_reason_and_reruns_change_nothing(
    ctx: StageContext, tmp_path: Path
) -> None:
    root, expected, max_bytes, timeout_s = _make_workspace(tmp_path)
    first = load_workspace.run(ctx, load_workspace.LoadWorkspaceParams(
        root=root, jobs=2, timeout_s=timeout_s, max_file_bytes=max_bytes, use_llm_roles=False))
    assert first.workspace_id == WORKSPACE_ID
    assert first.duplicates == [[PATHS["csv"], PATHS["csv_copy"]]]
    # The scan refuses an over-size file before it is read (never hashed); the rest are parsed.
    refused = {path: reason for path, reason in first.refused}
    assert first.unique_files == first.parsed == len(PATHS) - 1 + len(expected) - len(refused)
    rows = _query(
        ctx.graph,
        "MATCH (:Workspace {workspace_id: $w})-[c:CONTAINS]->(f:File) "
        "RETURN c.path AS path, f.valid AS valid, f.invalid_reason AS reason, c.role AS role, "
        "f.span_count AS spans, c.duplicate_paths AS dups",
        w=WORKSPACE_ID,
    )
    by_path = {r["path"]: r for r in rows}
    for name, phrase in expected.items():
        if f"broken/{name}" in refused:
            assert "over the" in refused[f"broken/{name}"] and "limit" in refused[f"broken/{name}"]
            continue
        row = by_path[f"broken/{name}"]
        assert row["valid"] is False and phrase in row["reason"], (name, row["reason"])
    for key, path in PATHS.items():
        if key != "csv_copy":
            assert by_path[path]["valid"] is True and by_path[path]["spans"] > 0, path
    assert by_path[PATHS["csv"]]["dups"] == [PATHS["csv_copy"]]
    assert by_path[PATHS["draft"]]["role"] == "confuser"
    # Every span hangs off exactly one valid file and its count matches the file's span_count.
    [check] = _query(
        ctx.graph,
        "MATCH (f:File) OPTIONAL MATCH (f)-[:HAS_SPAN]->(s) WITH f, count(s) AS n "
        "RETURN sum(CASE WHEN n = f.span_count THEN 0 ELSE 1 END) AS bad, sum(n) AS spans",
    )
    assert check == {"bad": 0, "spans": first.spans_written}

    before = _snapshot(ctx.graph)
    second = load_workspace.run(ctx, load_workspace.LoadWorkspaceParams(
        root=root, jobs=2, timeout_s=timeout_s, max_file_bytes=max_bytes, use_llm_roles=False))
    assert second.parsed == 0 and second.skipped_already_ingested == first.unique_files
    assert _snapshot(ctx.graph) == before


def test_changed_file_replaces_its_link_and_seed_is_linked_when_it_exists(
    ctx: StageContext, tmp_path: Path
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "notes.md").write_text("# Q2\n\nRevenue 9,115\n")
    ctx.graph.driver.execute_query("CREATE (:Seed {seed_id: 'seed-1'})", database_=ctx.graph.database)
    result = load_workspace.run(ctx, load_workspace.LoadWorkspaceParams(
        root=root, seed_id="seed-1", workspace_id="ws-t", jobs=1, use_llm_roles=False))
    assert result.seed_linked
    (root / "notes.md").write_text("# Q2\n\nRevenue 9,116\n")
    load_workspace.run(ctx, load_workspace.LoadWorkspaceParams(
        root=root, seed_id="seed-1", workspace_id="ws-t", jobs=1, use_llm_roles=False))
    rows = _query(
        ctx.graph,
        "MATCH (w:Workspace {workspace_id: 'ws-t'})-[c:CONTAINS]->(f)-[:HAS_SPAN]->(s) "
        "MATCH (w)-[:FOR_SEED]->(seed) RETURN c.path AS p, s.text AS t, seed.seed_id AS seed",
    )
    assert rows == [{"p": "notes.md", "t": "# Q2\n\nRevenue 9,116", "seed": "seed-1"}]


def test_non_utf8_file_name_is_refused_not_a_crash(ctx: StageContext, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    with open(os.path.join(os.fsencode(root), b"Umsatz_M\xe4rz.csv"), "wb") as fh:
        fh.write(b"Segment,Q1\nServices,1340\n")
    (root / "ok.csv").write_text("Segment,Q1\nGoods,99\n")
    result = load_workspace.run(ctx, load_workspace.LoadWorkspaceParams(
        root=root, workspace_id="ws-bytes", jobs=1, use_llm_roles=False))
    assert result.valid == 1
    assert result.refused == [
        ["Umsatz_M\ufffdrz.csv", "file name is not valid UTF-8; rename the file to ingest it"]
    ]
    rows = _query(ctx.graph, "MATCH (:Workspace {workspace_id: 'ws-bytes'})-[c:CONTAINS]->(f:File) "
                             "RETURN c.path AS p")
    assert rows == [{"p": "ok.csv"}]


def _cli_env(settings: GraphforgeSettings) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        GRAPHFORGE_HOME=str(settings.home),
        GRAPHFORGE_BOLT_PORT=str(settings.bolt_port),
        GRAPHFORGE_HTTP_PORT=str(settings.http_port),
    )
    return env


def test_kill_9_mid_run_then_rerun_equals_a_clean_run(
    ctx: StageContext, settings: GraphforgeSettings, tmp_path: Path
) -> None:
    root, _, max_bytes, _ = _make_workspace(tmp_path)
    # The slow PDF stalls the single worker for up to 60 s; the loader is killed during that stall, after
    # the smaller files before it are committed and before the larger ones after it are parsed.
    command = [
        sys.executable,
        "-m",
        "graphforge",
        "load",
        "workspace",
        str(root),
        "--jobs",
        "1",
        "--timeout",
        "60",
        "--max-file-mb",
        str(max_bytes / 1024 / 1024),
        "--rule-roles",
        "--json",
    ]
    proc = subprocess.Popen(
        command, cwd=REPO, env=_cli_env(settings), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 180
        written = 0
        while time.monotonic() < deadline and proc.poll() is None:
            written = _query(ctx.graph, "MATCH (f:File {ingested: true}) RETURN count(f) AS n")[0]["n"]
            if written >= 5:
                break
            time.sleep(0.3)
        assert proc.poll() is None, "the loader finished before it could be killed"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(30)
    total = _query(ctx.graph, "MATCH (f:File) RETURN count(f) AS n")[0]["n"]
    assert written >= 5 and total < len(PATHS) - 1 + 12  # killed mid-run: some files are missing

    resumed = load_workspace.run(ctx, load_workspace.LoadWorkspaceParams(
        root=root, jobs=1, timeout_s=5.0, max_file_bytes=max_bytes, use_llm_roles=False))
    assert resumed.skipped_already_ingested >= 5 and resumed.parsed > 0
    after_resume = _snapshot(ctx.graph)

    _query(ctx.graph, "MATCH (n) WHERE NOT n:__GraphforgeMigration DETACH DELETE n")
    load_workspace.run(ctx, load_workspace.LoadWorkspaceParams(
        root=root, jobs=1, timeout_s=5.0, max_file_bytes=max_bytes, use_llm_roles=False))
    assert _snapshot(ctx.graph) == after_resume


def test_cli_json_output_reports_duplicates(
    settings: GraphforgeSettings, graph: Graph, tmp_path: Path
) -> None:
    sample = generate_sample_workspace(tmp_path)
    shutil.rmtree(sample.root / "drafts")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "graphforge",
            "load",
            "workspace",
            str(sample.root),
            "--jobs",
            "1",
            "--rule-roles",
            "--json",
        ],
        cwd=REPO,
        env=_cli_env(settings),
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    import json

    result = json.loads(out.stdout)
    assert result["duplicates"] == [[PATHS["csv"], PATHS["csv_copy"]]] and result["invalid"] == []

"""Projects keep graphs apart (issue 27, item 1): `graphforge demo` writes its own project's graph and
leaves the user's graph, loaded from a user folder into the current project, exactly as it was.

The user's folder is the very sample the demo generates, so without projects the demo would MERGE onto
the user's spec and revise it (the bug the issue reports: the user's spec turned into v3 and v4).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphforge.cli import listing
from graphforge.cli.main import main
from graphforge.context import StageContext
from graphforge.demo.sample.workspace import generate_sample_workspace
from graphforge.graphdb import chores, server
from graphforge.graphdb.graph import Graph
from graphforge.settings import GraphforgeSettings, project_settings
from graphforge.stages import build_evidence, compile_specs

pytestmark = [pytest.mark.neo4j, pytest.mark.slow]


def _snapshot(graph: Graph) -> tuple[chores.GraphCounts, list[tuple[str, int, bool]]]:
    specs = sorted((r["spec_id"], r["version"], r["current"]) for r in listing.specs(graph))
    return chores.counts(graph), specs


def test_demo_leaves_the_users_graph_unchanged(monkeypatch: pytest.MonkeyPatch, settings: GraphforgeSettings,
                                               graph: Graph, ctx: StageContext, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    # The CLI reads the same home and ports as the test server: that is the user's current project.
    monkeypatch.setenv("GRAPHFORGE_HOME", str(settings.home))
    monkeypatch.setenv("GRAPHFORGE_BOLT_PORT", str(settings.bolt_port))
    monkeypatch.setenv("GRAPHFORGE_HTTP_PORT", str(settings.http_port))
    monkeypatch.setenv("GRAPHFORGE_HEAP_SIZE", settings.heap_size)
    monkeypatch.delenv("NEO4J_URI", raising=False)
    monkeypatch.delenv("GRAPHFORGE_PROJECT", raising=False)
    monkeypatch.chdir(tmp_path)
    assert GraphforgeSettings().project_name == "default"

    folder = generate_sample_workspace(tmp_path / "my-case")
    assert main(["load", "workspace", str(folder.root), "--workspace-id", "my-case", "--jobs", "1",
                 "--json"]) == 0
    build_evidence.run(ctx, build_evidence.BuildEvidenceParams(extractor="rule-based"))
    compile_specs.run(ctx, compile_specs.CompileSpecsParams(compiler="template"))
    before = _snapshot(graph)
    assert before[1] and before[0].nodes["TaskSpec"] >= 1
    capsys.readouterr()

    demo = project_settings("demo", create=True)
    demo_server = server.ManagedServer(demo)
    was_running = demo_server.pid() is not None
    try:
        assert main(["demo", "--out", str(tmp_path / "demo"), "--json"]) == 0
        result = json.loads(capsys.readouterr().out)
        assert _snapshot(graph) == before  # counts per label and type, spec ids, versions, currency

        # The demo said where it wrote, and that is a graph of its own, with the demo's specs in it.
        assert result["project"] == "demo"
        assert result["bolt_uri"] == demo_server.bolt_uri != server.ManagedServer(settings).bolt_uri
        info = demo_server.info()
        driver = server.open_driver(info)
        try:
            demo_graph = Graph(driver, info.database)
            demo_specs = [r["spec_id"] for r in listing.specs(demo_graph)]
            assert set(result["spec_ids"]) <= set(demo_specs)
            assert chores.counts(demo_graph).nodes.get("Judgment", 0) > 0
        finally:
            driver.close()
    finally:
        if not was_running:
            demo_server.stop()
    # The current project is still the user's.
    assert GraphforgeSettings().project_name == "default"

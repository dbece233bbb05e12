"""Importing trajectories into Neo4j: MERGE by id (re-import changes nothing), spec link, CLI."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from graphforge.cli.main import main
from graphforge.context import StageContext
from graphforge.graph import Graph
from graphforge.settings import GraphforgeSettings
from graphforge.stages.import_trajectories import ImportTrajectoriesParams, run
from graphforge.store import get_trajectories
from loaders.trajectories import TrajectoryFormat

pytestmark = pytest.mark.neo4j

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "trajectories"


def test_import_is_idempotent_and_keeps_the_conversation(ctx: StageContext, graph: Graph) -> None:
    params = ImportTrajectoriesParams(
        path=FIXTURES / "claude-code-session.jsonl",
        format=TrajectoryFormat.CLAUDE_CODE,
        spec_id="variance@v1",
    )
    first = run(ctx, params)
    again = run(ctx, params)
    assert first.trajectories == again.trajectories == 1 and first.by_scaffold == {"claude-code": 1}
    [outcome] = first.files
    assert outcome.imported == 1 and any("not JSON" in s for s in outcome.summary)
    [stored] = get_trajectories(graph, ["claude-code:5b0d2e8c-3f41-4c1a-9e77-0a6c1d2b9f30"])
    assert (
        stored.spec_id == "variance@v1" and stored.steps == 4 and stored.prompt_tokens == first.prompt_tokens
    )
    assert [c.function.name for m in stored.messages for c in m.tool_calls or []] == ["Read", "Bash", "Write"]


def test_load_trajectories_command(
    settings: GraphforgeSettings,
    graph: Graph,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The CLI opens its own context from the environment: point it at the test server.
    for key, value in (
        ("GRAPHFORGE_HOME", settings.home),
        ("GRAPHFORGE_BOLT_PORT", settings.bolt_port),
        ("GRAPHFORGE_HTTP_PORT", settings.http_port),
    ):
        monkeypatch.setenv(key, os.fspath(value) if isinstance(value, Path) else str(value))
    code = main(
        [
            "load",
            "trajectories",
            str(FIXTURES / "codex-rollout-2025-09-14T10-02-00.jsonl"),
            "--format",
            "codex",
            "--json",
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["trajectories"] == 1 and out["by_scaffold"] == {"codex": 1}
    [outcome] = out["files"]
    assert outcome["warnings"] == 2 and "(line 14)" in " ".join(outcome["summary"])
    [stored] = get_trajectories(graph, ["codex:0199a1b2-7c3d-7e40-9a51-2f6d8e0c4b17"])
    assert stored.model == "gpt-5-codex"
    assert main(["load", "trajectories", str(FIXTURES), "--format", "vim"]) != 0

"""Importing trajectories into Neo4j: MERGE by id (re-import changes nothing), spec link, CLI."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from graphforge.cli.main import main
from graphforge.context import StageContext
from graphforge.graphdb.graph import Graph
from graphforge.settings import GraphforgeSettings
from graphforge.stages.import_trajectories import ImportTrajectoriesParams, run
from graphforge.stores.trajectories import get_trajectories
from tests.support import trajectory_logs as logs

pytestmark = pytest.mark.neo4j

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "trajectories"


def test_import_is_idempotent_and_keeps_the_conversation(ctx: StageContext, graph: Graph) -> None:
    params = ImportTrajectoriesParams(
        path=FIXTURES / "claude-code-session.jsonl",
        format="claude-code",
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


def _cli_env(settings: GraphforgeSettings, monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in (
        ("GRAPHFORGE_HOME", settings.home),
        ("GRAPHFORGE_BOLT_PORT", settings.bolt_port),
        ("GRAPHFORGE_HTTP_PORT", settings.http_port),
    ):
        monkeypatch.setenv(key, os.fspath(value) if isinstance(value, Path) else str(value))


def test_format_auto_imports_one_file_of_each_format(
    settings: GraphforgeSettings,
    graph: Graph,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    _cli_env(settings, monkeypatch)
    runs = tmp_path / "runs"
    (runs / "swe").mkdir(parents=True)
    logs.write_swe_agent(runs / "swe" / "acme__totals-7.traj")
    logs.write_openai_array(runs / "messages.json")
    logs.write_openai_object(runs / "object.json")
    shutil.copy(FIXTURES / "openai_messages.jsonl", runs / "openai_messages.jsonl")
    logs.write_tau_bench(runs / "tau.json")
    logs.write_tau2(runs / "tau2.json")
    shutil.copy(FIXTURES / "openhands-trajectory.json", runs / "openhands.json")
    logs.write_openhands_output(runs / "output.jsonl")
    logs.write_openhands_events_folder(runs / "sessions" / "5f2c")
    shutil.copy(FIXTURES / "codex-rollout-2025-09-14T10-02-00.jsonl", runs / "rollout.jsonl")
    shutil.copy(FIXTURES / "claude-code-session.jsonl", runs / "claude.jsonl")
    code = main(["load", "trajectories", str(runs), "--format", "auto", "--json"])
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert code == 0 and out["skipped_files"] == 0 and out["imported_files"] == 11
    assert out["by_scaffold"] == {
        "swe-agent": 1,
        "openai-messages": 4,
        "tau-bench": 3,
        "openhands": 4,
        "codex": 1,
        "claude-code": 1,
    }
    assert {f["format"] for f in out["files"]} == {
        "swe-agent",
        "openai",
        "tau-bench",
        "openhands",
        "codex",
        "claude-code",
    }
    assert len([ln for ln in captured.err.splitlines() if ln.startswith("imported ")]) == 11
    stored = get_trajectories(graph, ["tau-bench:sim-0001", "openhands:5f2c"])
    assert sorted(t.trajectory_id for t in stored) == ["openhands:5f2c", "tau-bench:sim-0001"]
    again = main(["load", "trajectories", str(runs), "--json"])
    assert again == 0 and json.loads(capsys.readouterr().out)["trajectories"] == out["trajectories"]


def test_a_broken_file_per_format_is_one_line_and_nothing_imported_exits_1(
    settings: GraphforgeSettings,
    graph: Graph,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    _cli_env(settings, monkeypatch)
    broken = tmp_path / "broken"
    broken.mkdir()
    logs.cut(logs.write_swe_agent(broken / "cut.traj"))
    logs.cut(logs.write_openai_array(broken / "messages.json"))
    logs.cut(logs.write_tau_bench(broken / "tau.json"))
    logs.cut(logs.write_openhands_output(broken / "output.jsonl"), keep=0.3)
    for event in logs.write_openhands_events_folder(broken / "sessions" / "x").iterdir():
        logs.cut(event, keep=0.5)
    (broken / "rollout.jsonl").write_text(
        (FIXTURES / "codex-rollout-2025-09-14T10-02-00.jsonl").read_text().splitlines()[0] + "\n"
    )
    (broken / "claude.jsonl").write_text((FIXTURES / "claude-code-session.jsonl").read_text()[:300])
    (broken / "README.md").write_text("not a log\n")
    code = main(["load", "trajectories", str(broken)])
    err = capsys.readouterr().err.splitlines()
    skipped = [ln for ln in err if ln.startswith("skipped ")]
    named = sorted(ln.split(":", 1)[0].removeprefix(f"skipped {broken}/") for ln in skipped)
    assert code == 1 and named == [
        "claude.jsonl",
        "cut.traj",
        "messages.json",
        "output.jsonl",
        "rollout.jsonl",
        "sessions/x/events",
        "tau.json",
    ]
    assert all(len(ln.split(": ", 1)[1]) > 5 for ln in skipped)  # each with its reason
    assert err[-1].startswith(f"error: {broken}: no trajectory imported (7 file(s) skipped, 1 not read)")
    assert any(ln.startswith("not read (not a log by its name): 1 .md") for ln in err)

"""Projects without a server: records, ports, the current project and what the settings read from them."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from graphforge.cli.main import main
from graphforge.errors import ConfigError
from graphforge.graphdb import projects
from graphforge.settings import GraphforgeSettings, project_settings


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty GraphForge home on ports nothing else here uses; no project chosen by the environment."""
    monkeypatch.setenv("GRAPHFORGE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GRAPHFORGE_BOLT_PORT", "27687")
    monkeypatch.setenv("GRAPHFORGE_HTTP_PORT", "27474")
    for name in ("GRAPHFORGE_PROJECT", "NEO4J_URI", "GRAPHFORGE_NEO4J_URI"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path / "home"


def test_without_projects_the_settings_are_what_they_always_were(home: Path) -> None:
    s = GraphforgeSettings()
    assert (s.project_name, s.project_source) == ("default", "default")
    assert s.server_home == home / "neo4j" and (s.bolt_port, s.http_port) == (27687, 27474)
    assert not (home / "state.json").exists()


def test_new_projects_get_the_next_free_ports_and_keep_them(home: Path) -> None:
    first = project_settings("alpha", create=True)
    second = project_settings("beta", create=True)
    assert (first.bolt_port, first.http_port) == (27697, 27484)
    assert (second.bolt_port, second.http_port) == (27707, 27494)
    assert first.server_home == home / "projects" / "alpha" / "neo4j"
    # Recorded: the same project reads the same ports later, whatever the environment's ports are.
    assert json.loads((home / "projects" / "alpha" / "project.json").read_text())["bolt_port"] == 27697
    assert project_settings("alpha").bolt_port == 27697


def test_a_port_in_use_is_skipped(home: Path) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as busy:
        busy.bind(("127.0.0.1", 27697))
        busy.listen()
        record = projects.create(home, "gamma", "127.0.0.1", 27687, 27474)
    assert (record.bolt_port, record.http_port) == (27707, 27494)


def test_use_records_the_current_project_and_the_environment_overrides_it(
        home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["project", "new", "work", "--json"]) == 0
    assert main(["project", "new", "scratch", "--json"]) == 0
    assert main(["project", "use", "work", "--json"]) == 0
    capsys.readouterr()
    s = GraphforgeSettings()
    assert s.project_name == "work" and s.project_source == str(home / "state.json")
    assert main(["project", "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed["current"] == "work"
    assert [(p["name"], p["current"]) for p in listed["projects"]] == [
        ("default", False), ("scratch", False), ("work", True)]

    monkeypatch.setenv("GRAPHFORGE_PROJECT", "scratch")
    assert GraphforgeSettings().project_name == "scratch"
    assert main(["project", "show", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["name"] == "scratch" and shown["selected_by"] == "GRAPHFORGE_PROJECT"
    monkeypatch.delenv("GRAPHFORGE_PROJECT")
    assert main(["project", "use", "default", "--json"]) == 0
    assert GraphforgeSettings().project_name == "default"


def test_a_named_project_ignores_neo4j_uri_and_default_keeps_it(home: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    project_settings("mine", create=True)
    monkeypatch.setenv("NEO4J_URI", "bolt://db.example:7687")
    assert not GraphforgeSettings().managed
    assert project_settings("mine").managed


def test_mistakes_are_one_line_errors(home: Path, capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    assert main(["project", "use", "nope"]) == 1
    assert "create it with `graphforge project new nope`" in capsys.readouterr().err
    assert main(["project", "new", "Bad Name"]) == 1
    assert "bad project name" in capsys.readouterr().err
    assert main(["project", "new", "default"]) == 1
    assert main(["project", "new", "twice"]) == 0
    assert main(["project", "new", "twice"]) == 1
    assert "exists already" in capsys.readouterr().err
    monkeypatch.setenv("GRAPHFORGE_PROJECT", "missing")
    with pytest.raises(ConfigError, match="no project 'missing'"):
        GraphforgeSettings()
    monkeypatch.delenv("GRAPHFORGE_PROJECT")
    (home / "state.json").write_text("{not json", encoding="utf-8")
    assert main(["project", "show"]) == 1
    assert "state.json: unreadable" in capsys.readouterr().err

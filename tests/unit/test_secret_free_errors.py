"""No password from NEO4J_URI in any message, and one-line errors for file-system mistakes at export.

Every case runs the real CLI in a subprocess and reads what a user would see.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from graphforge.errors import ConfigError, GraphConnectionError
from graphforge.graphdb import server
from graphforge.settings import GraphforgeSettings

SECRET = "S3cr3t-Pa55-in-uri"
CLI = [sys.executable, "-m", "graphforge.cli.main"]


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "GRAPHFORGE_VERBOSE"))}
    full.update(env or {})
    return subprocess.run([*CLI, *args], capture_output=True, text=True, env=full, timeout=300)


def _one_error_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 1, proc
    lines = [ln for ln in (proc.stdout + proc.stderr).splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    return lines[0]


@pytest.mark.parametrize(
    "uri",
    [
        f"bolt://neo4j:{SECRET}@127.0.0.1:1",  # nothing listens on port 1
        f"neo4j://admin:{SECRET}@127.0.0.1:1/db?x=1",
        f"nonsense://neo4j:{SECRET}@127.0.0.1:1",  # a scheme the driver rejects
    ],
)
def test_a_password_in_neo4j_uri_never_reaches_a_message(uri: str) -> None:
    for args in (["db", "status"], ["db", "start"], ["db", "counts"], ["--verbose", "db", "status"]):
        proc = _cli(*args, env={"NEO4J_URI": uri})
        assert SECRET not in proc.stdout + proc.stderr, (args, proc.stdout + proc.stderr)
        assert proc.returncode == 1, (args, proc)
        if "--verbose" not in args:
            _one_error_line(proc)


def test_uri_credentials_are_split_off_and_used() -> None:
    settings = GraphforgeSettings(neo4j_uri=f"bolt://alice:{SECRET}@127.0.0.1:1")  # type: ignore[call-arg]
    info = server.resolve(settings, start=False)
    assert (info.uri, info.user, info.password) == ("bolt://127.0.0.1:1", "alice", SECRET)
    with pytest.raises(GraphConnectionError) as caught:
        server.open_driver(info)
    assert SECRET not in str(caught.value) and "127.0.0.1:1" in str(caught.value)
    bad = server.ServerInfo(f"nonsense://u:{SECRET}@h:1", "u", SECRET, "neo4j", False)
    with pytest.raises(ConfigError) as caught_config:
        server.open_driver(bad)
    assert SECRET not in str(caught_config.value) and "***@" in str(caught_config.value)
    assert server.redact_uri(f"neo4j+s://u:{SECRET}@x.databases.neo4j.io") == "neo4j+s://***@x.databases.neo4j.io"


def test_export_to_an_existing_file_is_one_error_line(tmp_path: Path) -> None:
    target = tmp_path / "already-a-file.jsonl"
    target.write_text("keep", encoding="utf-8")
    for command in ("sft", "rubrics"):
        line = _one_error_line(_cli("export", command, str(target)))
        assert str(target) in line and "not a folder" in line
    line = _one_error_line(_cli("export", "rft", str(target / "sub"), "--arm", "anchored"))
    assert f"{target} is a file" in line
    assert target.read_text() == "keep"

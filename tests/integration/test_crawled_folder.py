"""`cd folder && graphforge load workspace .` runs no code planted in the folder (issue 25, finding 1).

The folder holds modules named like the libraries the parser workers import, at its top and inside
(tests/support/planted.py); each writes a marker if it ever runs. The load is run from inside the folder,
by the `graphforge` command and by `python -m graphforge`, and then by `graphforge llm start`.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from graphforge.graphdb import server
from graphforge.settings import GraphforgeSettings
from tests.support.planted import markers_found, plant

pytestmark = pytest.mark.neo4j

GRAPHFORGE = str(Path(sys.executable).with_name("graphforge"))


def _env(settings: GraphforgeSettings) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONSAFEPATH", "PYTHONPATH")}
    env.update(
        GRAPHFORGE_HOME=str(settings.home),
        GRAPHFORGE_BOLT_PORT=str(settings.bolt_port),
        GRAPHFORGE_HTTP_PORT=str(settings.http_port),
    )
    return env


def _crawled(tmp_path: Path) -> tuple[Path, Path]:
    folder, markers = tmp_path / "crawl", tmp_path / "markers"
    plant(folder, markers)
    plant(folder / "inner", markers)
    (folder / "notes.txt").write_text("Quarterly totals were reconciled on 3 March.\n", encoding="utf-8")
    (folder / "inner" / "ledger.csv").write_text("account,amount\nrent,1200\npayroll,5300\n",
                                                 encoding="utf-8")
    return folder, markers


@pytest.mark.parametrize("how", ["graphforge", "python -m graphforge"])
def test_load_workspace_from_inside_a_planted_folder_runs_none_of_it(
    how: str, graph: object, neo4j_info: server.ServerInfo, settings: GraphforgeSettings, tmp_path: Path
) -> None:
    folder, markers = _crawled(tmp_path)
    command = [GRAPHFORGE] if how == "graphforge" else [sys.executable, "-m", "graphforge"]
    done = subprocess.run(
        [*command, "load", "workspace", ".", "--workspace-id", "planted", "--jobs", "2", "--rule-roles",
         "--json"],
        cwd=folder, env=_env(settings), capture_output=True, text=True, timeout=600, check=False,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    files = [p for p in folder.rglob("*") if p.is_file()]
    assert result["files_found"] == len(files) and result["valid"] >= 2
    assert markers_found(markers, folder) == []
    assert "Traceback" not in done.stderr


@pytest.mark.local_llm
def test_the_local_model_server_started_from_a_planted_folder_runs_none_of_it(
    settings: GraphforgeSettings, tmp_path: Path
) -> None:
    folder, markers = _crawled(tmp_path)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = _env(settings)
    env.update(GRAPHFORGE_HOME=str(tmp_path / "home"), GRAPHFORGE_LLM_LOCAL_PORT=str(port))
    try:
        started = subprocess.run([GRAPHFORGE, "llm", "start", "--json"], cwd=folder, env=env,
                                 capture_output=True, text=True, timeout=600, check=False)
        assert started.returncode == 0, started.stderr
    finally:
        subprocess.run([GRAPHFORGE, "llm", "stop"], cwd=folder, env=env, capture_output=True, timeout=120,
                       check=False)
    assert markers_found(markers, folder, tmp_path / "home") == []

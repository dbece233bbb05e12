"""A benchmark that meets a project error (a port in use, a missing service) says so in one line, exit 1."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_a_port_in_use_is_one_error_line_not_a_traceback(tmp_path: Path) -> None:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        env = dict(os.environ, GRAPHFORGE_HOME=str(tmp_path / "home"), GRAPHFORGE_BOLT_PORT=str(port),
                   GRAPHFORGE_HTTP_PORT=str(port + 1 if port < 65535 else port - 1))
        (tmp_path / "corpus" / "one").mkdir(parents=True)
        (tmp_path / "corpus" / "one" / "notes.md").write_text("# Notes\n", encoding="utf-8")
        done = subprocess.run([sys.executable, "-m", "bench", "corpus_tasks", "--corpus",
                               str(tmp_path / "corpus")],
                              cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
    assert done.returncode == 1, done.stderr
    assert len(lines) == 1 and lines[0].startswith("error: port 127.0.0.1:"), done.stderr
    assert "in use" in lines[0]

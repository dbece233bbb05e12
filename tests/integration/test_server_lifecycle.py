"""The managed Neo4j's lifecycle under races: two simultaneous `db start` on a fresh home, a lost pid file.

A real server on its own fresh home and free ports (the jars come from the shared cache), driven only
through the CLI, as two users' terminals would.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

CLI = [sys.executable, "-m", "graphforge.cli.main"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _jvms_of(home: Path) -> list[int]:
    """Neo4j JVMs whose command line names this home (what `ps` would show a user)."""
    flag = f"--home-dir={home / 'neo4j'}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if flag in (entry / "cmdline").read_bytes().split(b"\0"):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.fixture
def fresh_home(tmp_path: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    home = tmp_path / "gf-home"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "GRAPHFORGE_"))}
    env.update(
        GRAPHFORGE_HOME=str(home),
        GRAPHFORGE_BOLT_PORT=str(_free_port()),
        GRAPHFORGE_HTTP_PORT=str(_free_port()),
        GRAPHFORGE_HEAP_SIZE="256m",
        GRAPHFORGE_PAGECACHE_SIZE="64m",
        GRAPHFORGE_START_TIMEOUT_S="600",  # a loaded CI machine starts a JVM slowly
    )
    yield home, env
    for pid in _jvms_of(home):  # a failed test must not leave its server behind
        os.kill(pid, signal.SIGKILL)


def _run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, env=env, timeout=900)


@pytest.mark.timeout(1800)
def test_two_simultaneous_starts_give_one_server_that_status_and_stop_always_find(
    fresh_home: tuple[Path, dict[str, str]],
) -> None:
    home, env = fresh_home
    starts = [
        subprocess.Popen([*CLI, "db", "start", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=env)
        for _ in range(2)
    ]
    outputs = [proc.communicate(timeout=900) for proc in starts]
    for proc, (out, err) in zip(starts, outputs, strict=True):
        assert proc.returncode == 0, (out, err)
    pids = {json.loads(out)["pid"] for out, _ in outputs}
    jvms = _jvms_of(home)
    assert len(jvms) == 1 and pids == set(jvms), (pids, jvms)
    pid_file = home / "neo4j" / "run" / "neo4j.pid"
    assert int(pid_file.read_text()) == jvms[0]

    # The pid file is lost (deleted by hand, a crashed tool): status finds the server anyway and
    # writes the file back; a third start neither fails on the busy port nor starts a second server.
    pid_file.unlink()
    status = _run(env, "db", "status", "--json")
    assert status.returncode == 0 and json.loads(status.stdout)["running"] is True, status
    assert json.loads(status.stdout)["pid"] == jvms[0] and int(pid_file.read_text()) == jvms[0]
    pid_file.unlink()
    again = _run(env, "db", "start", "--json")
    assert again.returncode == 0 and json.loads(again.stdout)["pid"] == jvms[0], again
    assert _jvms_of(home) == jvms

    # stop without a pid file stops it; then status and stop agree that nothing runs.
    pid_file.unlink()
    stop = _run(env, "db", "stop", "--json")
    assert stop.returncode == 0 and json.loads(stop.stdout)["stopped"] is True, stop
    deadline = time.monotonic() + 60
    while _jvms_of(home) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert _jvms_of(home) == []
    status = _run(env, "db", "status", "--json")
    assert status.returncode == 0 and json.loads(status.stdout)["running"] is False
    assert json.loads(_run(env, "db", "stop", "--json").stdout)["stopped"] is False

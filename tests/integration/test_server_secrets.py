"""The managed Neo4j's password never reaches a command line, and a lock-out is reported as one.

The first `db start` of a fresh home is where the password used to leak: `neo4j-admin dbms
set-initial-password <password>` put it in the admin JVM's argv, readable by any local user in /proc.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from graphforge.errors import GraphConnectionError
from graphforge.graphdb import server
from graphforge.settings import GraphforgeSettings

pytestmark = [pytest.mark.neo4j, pytest.mark.slow]

GRAPHFORGE = str(Path(sys.executable).with_name("graphforge"))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class _ProcSampler:
    """Every /proc/<pid>/cmdline (and each environ this user may read), as often as it can."""

    def __init__(self) -> None:
        self.cmdlines: set[bytes] = set()
        self.environs: set[bytes] = set()
        self.sweeps = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            for entry in os.scandir("/proc"):
                if not entry.name.isdigit():
                    continue
                for name, into in (("cmdline", self.cmdlines), ("environ", self.environs)):
                    try:
                        with open(f"/proc/{entry.name}/{name}", "rb") as fh:
                            into.add(fh.read())
                    except OSError:
                        pass
            self.sweeps += 1

    def __enter__(self) -> _ProcSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(10)


def test_first_start_never_puts_the_password_in_a_command_line(tmp_path: Path) -> None:
    env = dict(os.environ)
    for key in ("NEO4J_URI", "NEO4J_PASSWORD", "NEO4J_USER"):
        env.pop(key, None)
    env.update(
        GRAPHFORGE_HOME=str(tmp_path / "home"),
        GRAPHFORGE_BOLT_PORT=str(_free_port()),
        GRAPHFORGE_HTTP_PORT=str(_free_port()),
        GRAPHFORGE_HEAP_SIZE="256m",
        GRAPHFORGE_PAGECACHE_SIZE="32m",
    )
    try:
        with _ProcSampler() as sampler:
            started = subprocess.run([GRAPHFORGE, "db", "start", "--json"], env=env, cwd=tmp_path,
                                     capture_output=True, text=True, timeout=400, check=False)
        assert started.returncode == 0, started.stderr
        credentials = tmp_path / "home" / "neo4j" / "credentials.json"
        password = json.loads(credentials.read_text(encoding="utf-8"))["password"].encode()
        assert stat.S_IMODE(credentials.stat().st_mode) == 0o600
        assert sampler.sweeps > 20  # sampled all through the start, not once
        leaked_argv = sum(password in cmdline for cmdline in sampler.cmdlines)
        leaked_env = sum(password in environ for environ in sampler.environs)
        assert (leaked_argv, leaked_env) == (0, 0), "the password was in a process's argv or environment"
        assert password.decode() not in started.stdout + started.stderr
        # The auth file written in its place works: the stored password logs in.
        settings = GraphforgeSettings(home=tmp_path / "home", bolt_port=int(env["GRAPHFORGE_BOLT_PORT"]),
                                      http_port=int(env["GRAPHFORGE_HTTP_PORT"]))
        driver = server.open_driver(server.resolve(settings, start=False))
        driver.close()
    finally:
        subprocess.run([GRAPHFORGE, "db", "stop"], env=env, capture_output=True, timeout=300, check=False)


def test_a_lock_out_after_failed_logins_says_so_and_when_to_retry(
    neo4j_info: server.ServerInfo,
) -> None:
    wrong = server.ServerInfo(neo4j_info.uri, neo4j_info.user, "not-" + neo4j_info.password[:4],
                              neo4j_info.database, False)
    messages = []
    for _ in range(5):  # Neo4j locks a user out after 3 failures in a row (by default, for 5 s)
        with pytest.raises(GraphConnectionError) as caught:
            server.open_driver(wrong)
        messages.append(str(caught.value))
    assert "refused the login" in messages[0]
    locked = messages[-1]
    assert "locked user 'neo4j' out after too many failed logins" in locked
    assert "try again in 5 seconds" in locked and "not reachable" not in locked
    assert neo4j_info.password not in " ".join(messages)
    # ... and after those seconds the right password logs in again (the other tests need it, too).
    deadline = time.monotonic() + 30
    while True:
        try:
            server.open_driver(neo4j_info).close()
            break
        except GraphConnectionError:
            assert time.monotonic() < deadline, "still locked out 30 s later"
            time.sleep(1)

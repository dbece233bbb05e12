"""`graphforge load workspace` on a folder holding every hostile entry at once, traced with strace.

The load must finish with exit 0, list every hostile entry as refused with a reason, and open no file
it refused and nothing a link points to outside the folder. strace (a Debian package, like bwrap)
records every open of the CLI and its parser workers; a missing strace fails the test.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphforge.graphdb.graph import Graph
from graphforge.settings import GraphforgeSettings
from tests.support.hostile import build_hostile_workspace, open_tmp_dir, unlock

_OPEN = re.compile(r'\b(?:open|openat|openat2|creat)\((?:[A-Z_]+|\d+), "((?:[^"\\]|\\.)*)", ([^)]*)')


@pytest.fixture
def base() -> Iterator[Path]:
    path = open_tmp_dir("gf-hostile-load-")
    yield path
    unlock(path)
    shutil.rmtree(path, ignore_errors=True)


def _opened(trace: Path) -> list[str]:
    """Every path an open-family call named to read or write a file (listing a folder is not reading
    one), decoded from strace's escapes."""
    paths = []
    for line in trace.read_text(encoding="utf-8", errors="replace").splitlines():
        match = _OPEN.search(line)
        if match and "O_DIRECTORY" not in match.group(2):
            raw = match.group(1).encode("latin-1", "backslashreplace").decode("unicode_escape")
            paths.append(os.fsdecode(raw.encode("latin-1", "replace")))
    return paths


@pytest.mark.timeout(1200)
def test_a_workspace_of_hostile_entries_loads_with_every_entry_refused(
    graph: Graph, settings: GraphforgeSettings, base: Path
) -> None:
    strace = shutil.which("strace")
    assert strace, "strace is needed to check what the load opens (apt-get install strace)"
    secret = base / "outside-secret.txt"
    secret.write_text("sk-outside-the-workspace", encoding="utf-8")
    root, entries = build_hostile_workspace(base, secret)
    os.symlink(secret, root / "escape.txt")
    trace = base / "open.trace"
    env = dict(os.environ)
    env.update(
        GRAPHFORGE_HOME=str(settings.home),
        GRAPHFORGE_BOLT_PORT=str(settings.bolt_port),
        GRAPHFORGE_HTTP_PORT=str(settings.http_port),
    )
    env.pop("GRAPHFORGE_LLM_BASE_URL", None)
    proc = subprocess.run(
        [strace, "-f", "-qq", "-s", "8192", "-e", "trace=open,openat,openat2,creat", "-o", str(trace),
         sys.executable, "-m", "graphforge.cli.main", "load", "workspace", str(root), "--rule-roles",
         "--jobs", "1", "--json"],
        capture_output=True, text=True, env=env, timeout=1100,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout)
    refused = {path: reason for path, reason in result["refused"]}
    hostile = ("fifo", "sparse_giant", "unreadable_file", "unreadable_dir", "symlink_loop",
               "symlink_loop-twin", "symlink_outside", "dangling_symlink", "escape.txt", "manifest.json")
    for name in hostile:
        assert refused.get(name), (name, result["refused"])
    assert any(p.startswith("non_utf8_name-") for p in refused)
    assert any(p.startswith("long_path/") and "limit" in r for p, r in refused.items())
    # Read and parsed (the parser judges 200,000 brackets; what it says is the parser's business):
    # the two good files and the deep one, nothing else.
    assert result["parsed"] == 3 and result["valid"] >= 2 and entries, result

    opened = _opened(trace)
    assert opened, "strace recorded no open at all"
    assert str(secret) not in opened
    inside = [p for p in opened if p.startswith(os.fsdecode(os.fsencode(root)))]
    never = ("fifo", "sparse_giant", "unreadable_file", "unreadable_dir", "symlink_loop", "symlink_outside",
             "dangling_symlink", "escape.txt", "non_utf8_name", "long_path")
    touched = [p for p in inside if any(f"/{name}" in p for name in never)]
    assert touched == [], touched

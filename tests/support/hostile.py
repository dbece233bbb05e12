"""Hostile file-system entries for reader tests: what a crawled or attacker-made folder can hold.

``build_hostile_workspace`` makes one folder holding every kind at once; ``as_unprivileged`` runs a
reader as uid 65534 when the tests run as root (root reads mode-000 files, so "unreadable" needs
another user); ``HOSTILE_KINDS`` names the entries the fuzz tests draw from.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

NOBODY = 65534
DEEP = 200_000  # brackets: far past any recursion limit
LONG_PATH_CHARS = 4_720  # the path length from the report, past PATH_MAX (4096)
SPARSE_BYTES = 50 * 1024**3  # 50 GiB that take no disk space

HOSTILE_KINDS = (
    "deep_json",
    "symlink_loop",
    "long_path",
    "non_utf8_name",
    "fifo",
    "unreadable_file",
    "unreadable_dir",
    "sparse_giant",
    "symlink_outside",
    "dangling_symlink",
)


def open_tmp_dir(prefix: str) -> Path:
    """A temporary folder every user can traverse (pytest's tmp_path is owner-only), for as_unprivileged."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    path.chmod(0o755)
    return path


def make_long_path(root: Path, chars: int = LONG_PATH_CHARS, leaf: str = "deep.txt") -> int:
    """Nested folders (made through directory fds, as no single path may be this long) holding ``leaf``
    so that its path under ``root`` is at least ``chars`` characters; returns that length."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    length, name = 0, "d" * 235
    try:
        while length + len(leaf) < chars:
            os.mkdir(name, dir_fd=fd)
            child = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = child
            length += len(name) + 1
        out = os.open(leaf, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(out, b"deep")
        os.close(out)
    finally:
        os.close(fd)
    return length + len(leaf)


def add_entry(root: Path, kind: str, name: str, outside: Path | None = None) -> str:
    """One hostile entry named ``name`` (or derived from it) in ``root``; returns its relative path."""
    path = root / name
    if kind == "deep_json":
        path.write_text("[" * DEEP + "]" * DEEP, encoding="ascii")
    elif kind == "symlink_loop":
        os.symlink(name + "-twin", path)
        os.symlink(name, root / (name + "-twin"))
    elif kind == "long_path":
        os.mkdir(path)
        make_long_path(path)
    elif kind == "non_utf8_name":
        raw = os.path.join(os.fsencode(root), os.fsencode(name) + b"-\xff\xfe.csv")
        with open(raw, "wb") as fh:
            fh.write(b"a,b\n1,2\n")
        return os.fsdecode(os.path.basename(raw))
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "unreadable_file":
        path.write_text("secret-ish", encoding="utf-8")
        path.chmod(0)
    elif kind == "unreadable_dir":
        path.mkdir()
        (path / "inside.txt").write_text("x", encoding="utf-8")
        path.chmod(0)
    elif kind == "sparse_giant":
        with open(path, "wb") as fh:
            fh.truncate(SPARSE_BYTES)
    elif kind == "symlink_outside":
        target = outside or Path("/etc/passwd")
        os.symlink(target, path)
    elif kind == "dangling_symlink":
        os.symlink(root / "does-not-exist", path)
    else:
        raise ValueError(kind)
    return name


def build_hostile_workspace(base: Path, secret: Path) -> tuple[Path, dict[str, str]]:
    """A workspace with a non-UTF-8 root name holding one entry of every kind plus two good files and a
    deeply nested manifest; returns (root, {kind: relative path})."""
    root = Path(os.fsdecode(os.path.join(os.fsencode(base), b"ws-\xff\xfe-hostile")))
    root.mkdir()
    (root / "report.csv").write_text("Segment,Q1\nServices,1340\n", encoding="utf-8")
    (root / "notes.md").write_text("# Notes\nRevenue rose.\n", encoding="utf-8")
    entries = {kind: add_entry(root, kind, kind, outside=secret) for kind in HOSTILE_KINDS}
    (root / "manifest.json").write_text('{"files": ' + "[" * DEEP + "]" * DEEP + "}", encoding="ascii")
    return root, entries


def unlock(root: Path) -> None:
    """Give back permissions taken by the builder (mode-000 entries) so the folder can be deleted."""
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            full = os.path.join(dirpath, name)
            try:
                if not os.path.islink(full) and os.stat(full).st_mode & 0o777 == 0:
                    os.chmod(full, 0o755)
            except OSError:
                continue  # past PATH_MAX: nothing there was locked


def as_unprivileged(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` as uid/gid 65534 in a forked child when running as root, else directly.

    The result travels back as JSON, so ``fn`` returns JSON-able data. Modules ``fn`` needs must be
    imported before the call: the child may not be able to read the interpreter's files.
    """
    if os.geteuid() != 0:
        return json.loads(json.dumps(fn(*args)))
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        status = 0
        try:
            os.close(read_end)
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            payload = json.dumps({"ok": fn(*args)})
        except BaseException as exc:  # noqa: BLE001 - everything goes back to the parent
            payload, status = json.dumps({"error": f"{type(exc).__name__}: {exc}"}), 1
        data = payload.encode()
        while data:
            data = data[os.write(write_end, data) :]
        os._exit(status)
    os.close(write_end)
    chunks = []
    while chunk := os.read(read_end, 1 << 16):
        chunks.append(chunk)
    os.close(read_end)
    os.waitpid(pid, 0)
    answer = json.loads(b"".join(chunks))
    if "error" in answer:
        raise AssertionError(f"the reader raised as uid {NOBODY}: {answer['error']}")
    return answer["ok"]

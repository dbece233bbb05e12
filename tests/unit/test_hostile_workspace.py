"""The workspace scan against hostile folders: every entry refused with a reason, the scan never stops.

Readers run as uid 65534 when the tests run as root (root would read mode-000 entries). The full
load of the same folder through the CLI, traced with strace, is in tests/integration/test_hostile_load.py.
"""

from __future__ import annotations

import json
import os
import shutil
import string
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml  # noqa: F401 - imported before as_unprivileged forks: the child may not read the runtime
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphforge.errors import SourceFormatError
from loaders.workspace import MAX_MANIFEST_BYTES, scan_workspace
from tests.support.hostile import (
    HOSTILE_KINDS,
    add_entry,
    as_unprivileged,
    build_hostile_workspace,
    open_tmp_dir,
    unlock,
)


@pytest.fixture
def base() -> Iterator[Path]:
    path = open_tmp_dir("gf-hostile-")
    yield path
    unlock(path)
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def secret(base: Path) -> Path:
    path = base / "outside-secret.txt"
    path.write_text("sk-outside-the-workspace", encoding="utf-8")
    return path


def _scan(root: str, **kwargs: Any) -> dict[str, Any]:
    return scan_workspace(Path(root), **kwargs).model_dump(mode="json")


def test_every_hostile_entry_is_refused_with_its_reason(base: Path, secret: Path) -> None:
    root, entries = build_hostile_workspace(base, secret)
    scan = as_unprivileged(_scan, str(root))
    # What reaches the graph and the report is valid Unicode (the root and abs_path stay the real bytes,
    # only used to open files).
    shown = [scan["name"], scan["workspace_id"], scan["refused"], scan["skipped"],
             [c["path"] for c in scan["candidates"]]]
    json.dumps(shown, ensure_ascii=False).encode("utf-8")
    assert sorted(c["path"] for c in scan["candidates"]) == ["deep_json", "notes.md", "report.csv"]
    reasons = {path: reason for path, reason in scan["refused"]}
    expected = {
        "symlink_loop": "symlink loop",
        "symlink_loop-twin": "symlink loop",
        "fifo": "not a regular file",
        "unreadable_file": "unreadable: Permission denied",
        "unreadable_dir": "folder cannot be listed: Permission denied",
        "sparse_giant": "over the 104857600-byte limit (never read)",
        "symlink_outside": "pointing outside the workspace",
        "dangling_symlink": "dangling symlink",
        "manifest.json": "manifest nests deeper than",
        "non_utf8_name-\ufffd\ufffd.csv": "not valid UTF-8",
    }
    for path, words in expected.items():
        assert words in reasons.get(path, ""), (path, reasons.get(path))
    long = [reason for path, reason in reasons.items() if path.startswith("long_path/")]
    assert len(long) == 1 and "over the system's limit" in long[0]
    # The non-UTF-8 root name gives a readable name and id instead of a UnicodeEncodeError.
    assert scan["name"] == "ws-\ufffd\ufffd-hostile" and scan["workspace_id"].startswith("ws-ws-hostile-")
    assert "sk-outside" not in json.dumps(scan)
    assert entries["non_utf8_name"].startswith("non_utf8_name-")


def test_two_non_utf8_roots_get_different_ids(base: Path) -> None:
    first = Path(os.fsdecode(os.path.join(os.fsencode(base), b"ws-\xff")))
    second = Path(os.fsdecode(os.path.join(os.fsencode(base), b"ws-\xfe")))
    for root in (first, second):
        root.mkdir()
        (root / "a.txt").write_text("a", encoding="utf-8")
    ids = {scan_workspace(root).workspace_id for root in (first, second)}
    assert len(ids) == 2


def _sparse_manifest(path: Path) -> None:
    with path.open("wb") as fh:
        fh.truncate(MAX_MANIFEST_BYTES + 1)


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("name", "make", "reason"),
    [
        ("manifest.json", lambda p: p.write_text('{"files": ' + "[" * 200_000 + "]" * 200_000 + "}"),
         "nests"),
        ("manifest.yaml", lambda p: p.write_text("".join("  " * i + "a:\n" for i in range(500))), "nests"),
        ("manifest.yaml", lambda p: p.write_text("files:\n" + "- " * 100_000 + "x\n"), "nests"),
        ("manifest.yml", lambda p: p.write_text("files: " + "[" * 100_000 + "]" * 100_000 + "\n"), "nests"),
        (
            "manifest.yaml",
            lambda p: p.write_text('a: &a ["x","x"]\nb: &b [*a,*a]\nc: &c [*b,*b]\nfiles: [*c,*c]\n'),
            "aliases",
        ),
        ("manifest.json", lambda p: os.mkfifo(p), "not a regular file"),
        ("manifest.json", _sparse_manifest, "over the"),
        ("manifest.json", lambda p: p.write_bytes(b'{"files": [{"path": "\xff\xfe"}]}'), "not UTF-8"),
        ("manifest.json", lambda p: p.write_text('{"files": [{"role": "core"}]}'), "schema"),
    ],
)
def test_a_broken_manifest_in_the_folder_is_refused_and_the_scan_goes_on(
    tmp_path: Path, name: str, make: Any, reason: str
) -> None:
    (tmp_path / "ledger.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    make(tmp_path / name)
    scan = scan_workspace(tmp_path)
    assert [c.path for c in scan.candidates] == ["ledger.csv"]
    refused = dict(scan.refused)
    assert reason in refused[name] and "\n" not in refused[name], refused
    # The same file named explicitly (--manifest) is an error: one line naming the file.
    with pytest.raises(SourceFormatError, match=reason) as info:
        scan_workspace(tmp_path, manifest=tmp_path / name)
    assert "\n" not in str(info.value) and name in str(info.value)


def test_a_symlinked_manifest_is_refused_without_reading_its_target(tmp_path: Path, secret: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "ledger.csv").write_text("a,b\n", encoding="utf-8")
    os.symlink(secret, root / "manifest.json")
    scan = scan_workspace(root)
    assert dict(scan.refused)["manifest.json"].startswith("manifest is a symlink")
    assert "sk-outside" not in scan.model_dump_json()


def test_manifest_paths_stay_inside_the_folder(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "data").mkdir(parents=True)
    (root / "data" / "ledger.csv").write_text("a,b\n", encoding="utf-8")
    hostile = ["../../etc/shadow", "/etc/shadow", "data/../../x", "a\x00b", "x" * 5000, "data/./ledger.csv"]
    (root / "manifest.json").write_text(json.dumps({"files": [{"path": p, "role": "core"} for p in hostile]}))
    scan = scan_workspace(root)
    assert [(c.path, c.role_source) for c in scan.candidates] == [("data/ledger.csv", "manifest")]
    reasons = dict(scan.refused)
    for path in ("../../etc/shadow", "/etc/shadow", "data/../../x", "a\x00b"):
        assert reasons[path] == "manifest path points outside the workspace", path
    assert any(p.endswith("(5000 characters)") for p in reasons)  # shown cut, never 5000 characters


# ---- fuzz ---------------------------------------------------------------------------------------

_NAME_CHARS = string.ascii_letters + string.digits + " ._-()',&#%+=@~é€漢"
names = st.text(alphabet=_NAME_CHARS, min_size=1, max_size=60).filter(lambda n: n not in (".", ".."))
entry_kinds = st.sampled_from(("regular", "nested_regular", "manifest", *HOSTILE_KINDS))
manifest_bodies = st.one_of(
    st.integers(1, 3_000).map(lambda n: "[" * n + "]" * n),
    st.integers(1, 3_000).map(lambda n: '{"files": ' + "[" * n + "]" * n + "}"),
    st.integers(1, 2_000).map(lambda n: "".join("  " * i + "k:\n" for i in range(n))),
    st.lists(st.text(max_size=300), max_size=20).map(
        lambda ps: json.dumps({"files": [{"path": p} for p in ps]})),
    st.binary(max_size=500).map(lambda b: b.decode("latin-1")),
    st.just("a: &a [1,1]\nb: &b [*a,*a]\nfiles: [*b]\n"),
)


def _fuzz_scan(root: str) -> dict[str, Any]:
    try:
        return {"scan": _scan(root)}
    except SourceFormatError as exc:  # only the root itself may make the scan fail, never an entry
        return {"error": str(exc)}


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(entries=st.lists(st.tuples(entry_kinds, names), min_size=1, max_size=8), body=manifest_bodies)
def test_fuzz_generated_hostile_entries_never_stop_the_scan(entries: list[tuple[str, str]],
                                                            body: str) -> None:
    base = open_tmp_dir("gf-fuzz-")
    try:
        root = base / "ws"
        root.mkdir()
        made: dict[str, str] = {}
        for index, (kind, name) in enumerate(entries):
            unique = f"{index}-{name}"
            if kind == "regular":
                (root / unique).write_text("a,b\n1,2\n", encoding="utf-8")
            elif kind == "nested_regular":
                (root / unique).mkdir()
                (root / unique / "inner.csv").write_text("a\n1\n", encoding="utf-8")
                unique += "/inner.csv"
            elif kind == "manifest":
                (root / "manifest.yaml").write_text(body, encoding="utf-8")
                unique = "manifest.yaml"
            else:
                unique = add_entry(root, kind, unique, outside=base / "outside.txt")
            made[unique] = kind
        result = as_unprivileged(_fuzz_scan, str(root))
        assert "error" not in result, result
        scan = result["scan"]
        json.dumps([scan["refused"], [c["path"] for c in scan["candidates"]]], ensure_ascii=False).encode()
        candidates = {c["path"] for c in scan["candidates"]}
        refused = {path for path, _ in scan["refused"]}
        assert all(reason for _, reason in scan["refused"])
        for path, kind in made.items():
            if kind in ("regular", "nested_regular", "deep_json"):
                assert path in candidates, (path, kind, scan["refused"])
            elif kind == "manifest":
                assert path not in candidates
            elif kind == "long_path":
                assert any(r.startswith(path + "/") for r in refused), (path, scan["refused"])
            elif kind == "non_utf8_name":
                assert path not in candidates and any("not valid UTF-8" in r for _, r in scan["refused"])
            else:
                assert path in refused, (path, kind, scan["refused"])
    finally:
        unlock(base)
        shutil.rmtree(base, ignore_errors=True)

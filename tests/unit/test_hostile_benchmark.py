"""The benchmark reader against hostile folders: bad records and entries refused with reasons, the rest loads.

Readers run as uid 65534 when the tests run as root (root would read mode-000 entries).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphforge.errors import SourceFormatError
from graphforge.parsers import parse_file
from loaders.benchmark import read_benchmark
from tests.support.hostile import HOSTILE_KINDS, add_entry, as_unprivileged, open_tmp_dir, unlock

ESCAPES = ["../outside-secret.txt", "/etc/shadow"]
GOOD = {"task_id": "t-good", "prompt": "Reconcile the ledger.", "reference_files": ["ledger.csv"]}


def _warm_parsers() -> None:
    """Load the parsers' lazily imported modules before a reader runs as a user who cannot read them."""
    with tempfile.TemporaryDirectory() as tmp:
        for name, body in (("a.csv", "a,b\n1,2\n"), ("a.json", "{}"), ("a.txt", "x"), ("a.md", "# x")):
            (Path(tmp) / name).write_text(body, encoding="utf-8")
            parse_file(Path(tmp) / name)


@pytest.fixture
def base() -> Iterator[Path]:
    _warm_parsers()
    path = open_tmp_dir("gf-hostile-bench-")
    yield path
    unlock(path)
    shutil.rmtree(path, ignore_errors=True)


def _read(root: str) -> dict[str, Any]:
    return read_benchmark(Path(root), "hostile").model_dump(mode="json")


def test_every_hostile_record_and_entry_is_refused_and_the_rest_loads(base: Path) -> None:
    secret = base / "outside-secret.txt"
    secret.write_text("sk-outside-the-benchmark", encoding="utf-8")
    root = base / "bench"
    refs = root / "reference_files"
    refs.mkdir(parents=True)
    (refs / "ledger.csv").write_text("account,amount\nrent,1200\n", encoding="utf-8")
    lines = [
        json.dumps(GOOD),
        "[" * 200_000 + "]" * 200_000,  # RecursionError in json.loads before
        '{"task_id": "x", "prompt": ' + "[" * 50_000 + "]" * 50_000 + "}",
        "{not json",
        "[1, 2]",
        json.dumps({"task_id": "t-no-prompt"}),
        json.dumps(GOOD),  # duplicate id
        json.dumps({"task_id": "t-bad-refs", "prompt": "p", "reference_files": 5}),
        json.dumps({"task_id": "t-escape", "prompt": "p", "reference_files": ESCAPES}),
    ]
    (root / "tasks.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (root / "deep.json").write_text("[" * 200_000 + "]" * 200_000, encoding="ascii")
    (root / "latin1.jsonl").write_bytes(b'{"task_id": "t-\xe9", "prompt": "p"}\n')
    os.mkfifo(root / "pipe.jsonl")
    os.symlink(secret, root / "linked.jsonl")
    for kind in HOSTILE_KINDS:
        add_entry(refs, kind, kind, outside=secret)
    src = as_unprivileged(_read, str(root))
    assert sorted(t["task_id"] for t in src["tasks"]) == ["t-escape", "t-good"]
    links = [link["path"] for link in src["file_links"]]
    assert links == ["reference_files/deep_json", "reference_files/ledger.csv"]
    refused = "\n".join(src["refused"])
    expected = [
        "tasks.jsonl: record 2: JSON nested too deeply",
        "tasks.jsonl: record 3: JSON nested too deeply",
        "tasks.jsonl: record 4: invalid JSON",
        "tasks.jsonl: record 5: expected a JSON object",
        "tasks.jsonl: record 6: no prompt text",
        "tasks.jsonl: record 7: duplicate task id",
        "tasks.jsonl: record 8: reference_files must be a list",
        "deep.json: record 1: JSON nested too deeply",
        "latin1.jsonl: task records are not UTF-8",
        "pipe.jsonl: not a regular file",
        "linked.jsonl: symlinked",
        "reference_files/symlink_loop: symlink loop",
        "reference_files/fifo: not a regular file",
        "reference_files/unreadable_file: unreadable: Permission denied",
        "reference_files/unreadable_dir: folder cannot be listed",
        "reference_files/sparse_giant: file is 53687091200 bytes",
        "reference_files/symlink_outside: symlinked file pointing outside",
        "reference_files/dangling_symlink: dangling symlink",
        "not valid UTF-8",
        "over the system's limit",
    ]
    for words in expected:
        assert words in refused, (words, src["refused"])
    assert all("\n" not in r for r in src["refused"])
    assert "sk-outside" not in json.dumps(src)
    assert sorted(src["missing_references"]) == [f"t-escape: {p}" for p in ESCAPES]


def test_a_folder_without_any_record_file_is_still_an_error(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    with pytest.raises(SourceFormatError, match="no task records"):
        read_benchmark(tmp_path, "empty")


# ---- fuzz ---------------------------------------------------------------------------------------

json_values: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
def _deep_object(n: int) -> str:
    return '{"a": ' * n + "1" + "}" * n


records = st.one_of(
    json_values.map(json.dumps),
    st.fixed_dictionaries(
        {"task_id": st.text(max_size=10) | st.integers(), "prompt": st.text(max_size=30) | json_values},
        optional={"reference_files": json_values, "deliverable_files": json_values, "sector": json_values},
    ).map(json.dumps),
    st.integers(1, 5_000).map(lambda n: "[" * n + "]" * n),
    st.integers(1, 5_000).map(lambda n: '{"task_id": "d", "prompt": "p", "x": ' + _deep_object(n) + "}"),
    st.binary(max_size=60).map(lambda b: b.decode("latin-1")),
)


def _fuzz_read(root: str) -> dict[str, Any]:
    src = _read(root)
    links = [x["path"] for x in src["file_links"]]
    return {"tasks": len(src["tasks"]), "refused": src["refused"], "links": links}


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    lines=st.lists(records, min_size=1, max_size=12),
    kinds=st.lists(st.sampled_from(HOSTILE_KINDS), max_size=5),
    as_json_list=st.booleans(),
)
def test_fuzz_generated_records_and_entries_never_stop_the_read(
    lines: list[str], kinds: list[str], as_json_list: bool
) -> None:
    _warm_parsers()
    base = open_tmp_dir("gf-fuzz-bench-")
    try:
        root = base / "bench"
        root.mkdir()
        if as_json_list:
            (root / "tasks.json").write_text("[" + ",".join(lines) + "]", encoding="utf-8")
        else:
            text = "\n".join(line.replace("\n", " ") for line in lines)
            (root / "tasks.jsonl").write_text(text, encoding="utf-8")
        for index, kind in enumerate(kinds):
            add_entry(root, kind, f"{index}-{kind}", outside=base / "outside.txt")
        result = as_unprivileged(_fuzz_read, str(root))
        assert all(r.strip() and "\n" not in r for r in result["refused"])
        for index, kind in enumerate(kinds):
            name = f"{index}-{kind}"
            if kind in ("deep_json",):
                assert name in result["links"]
            elif kind != "non_utf8_name":
                assert any(r.startswith(name) for r in result["refused"]), (name, result["refused"])
    finally:
        unlock(base)
        shutil.rmtree(base, ignore_errors=True)

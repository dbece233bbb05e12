"""Pure export helpers: trl rows, length estimate, token statistics, streaming writer, audit gate."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from graphforge.errors import ExportError, SourceFormatError
from graphforge.export.dataset import write_dataset
from graphforge.export.guard import Override, check_audit
from graphforge.export.record import TrajectoryText
from graphforge.export.rows import (
    canonical_tools,
    conversational_messages,
    estimate_tokens,
    has_assistant_turn,
    pair_tool_calls,
    row_schema,
)
from graphforge.export.writer import RowWriter, token_stats

MESSAGES = [
    {"role": "user", "content": "Sum column B."},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "read_file", "arguments": '{"path": "a.csv"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "b\n1\n2"},
    {"role": "assistant", "content": "The total is 3."},
]


def text(tid: str, messages: Sequence[dict[str, Any]] = MESSAGES, tools: str | None = "[]") -> TrajectoryText:
    return TrajectoryText(
        trajectory_id=tid, spec_id="s@v1", messages_json=json.dumps(list(messages)), tools_json=tools
    )


def test_messages_keep_openai_tool_calls_and_drop_empty_fields() -> None:
    out = conversational_messages(json.dumps(MESSAGES), "t1")
    assert out[1] == {"role": "assistant", "tool_calls": MESSAGES[1]["tool_calls"]}
    assert out[2] == {"role": "tool", "content": "b\n1\n2", "tool_call_id": "c1"}
    assert list(out[0]) == ["role", "content"]


def test_broken_stored_messages_name_the_trajectory() -> None:
    with pytest.raises(SourceFormatError, match="Trajectory t9"):
        conversational_messages('[{"role": "robot"}]', "t9")


def test_tools_are_canonical_json_text() -> None:
    assert canonical_tools(None) == "[]"
    assert canonical_tools('[{"b": 1, "a": {"d": 2, "c": 3}}]') == '[{"a":{"c":3,"d":2},"b":1}]'


def test_estimate_counts_bytes_over_three_plus_message_overhead() -> None:
    messages = [{"role": "user", "content": "x" * 296}]  # 4 + 296 bytes
    assert estimate_tokens(messages, "[]") == 100 + 4
    # Multi-byte characters count by their UTF-8 size, so non-English text is not under-counted.
    assert estimate_tokens([{"role": "user", "content": "é" * 148}], "[]") == 100 + 4
    with_tools = estimate_tokens(messages, '[{"name":"read_file"}]')
    assert with_tools > estimate_tokens(messages, "[]")


def test_a_row_needs_an_assistant_turn() -> None:
    assert has_assistant_turn(MESSAGES)
    assert not has_assistant_turn(MESSAGES[:1] + [{"role": "assistant", "content": ""}])


def test_token_stats_use_nearest_rank_percentile() -> None:
    stats = token_stats(list(range(1, 101)), "estimate", 1000)
    assert (stats.min, stats.max, stats.total, stats.p95, stats.median) == (1, 100, 5050, 95, 50.5)
    assert token_stats([], "estimate", 10).total == 0


def test_dataset_writer_excludes_over_length_and_is_deterministic(tmp_path: Path) -> None:
    long = [{"role": "user", "content": "y" * 3000}, {"role": "assistant", "content": "ok"}]
    rows = [text("t1"), text("t2", long), text("t3", MESSAGES[:1]), text("t4")]
    first = write_dataset(rows, tmp_path / "a", "sft", estimate_tokens, max_tokens=500)
    second = write_dataset(rows, tmp_path / "b", "sft", estimate_tokens, max_tokens=500)
    assert first.trajectory_ids == ["t1", "t4"]
    assert [e.trajectory_id for e in first.over_length] == ["t2"] and first.no_assistant_turn == ["t3"]
    assert [f.sha256 for f in first.files] == [f.sha256 for f in second.files]
    for f in first.files:
        assert hashlib.sha256((tmp_path / "a" / f.path).read_bytes()).hexdigest() == f.sha256
    assert pq.read_table(tmp_path / "a" / "sft.parquet").schema.equals(row_schema())
    assert not list((tmp_path / "a").glob(".*partial"))


def _call(call_id: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": "list_files", "arguments": "{}"}}


def _assert_paired(messages: list[dict[str, Any]]) -> None:
    """Each assistant turn's calls are answered by exactly the tool messages that follow it."""
    open_ids: list[str] = []
    for m in [*messages, {"role": "user", "content": "end"}]:
        if m["role"] == "tool":
            assert m["tool_call_id"] in open_ids
            open_ids.remove(m["tool_call_id"])
            continue
        assert open_ids == []
        open_ids = [c["id"] for c in m.get("tool_calls") or ()]


def test_pair_tool_calls_drops_unanswered_calls_and_orphan_results() -> None:
    cut_off = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "tool_calls": [_call("a"), _call("b")]},
        {"role": "tool", "tool_call_id": "a", "content": "x"},
        {"role": "tool", "tool_call_id": "zz", "content": "orphan"},
        {"role": "assistant", "content": "done"},
        {"role": "assistant", "content": "checking", "tool_calls": [_call("c")]},
        {"role": "assistant", "tool_calls": [_call("d")]},
    ]
    fixed, repaired = pair_tool_calls(cut_off)
    assert repaired
    _assert_paired(fixed)
    assert [c["id"] for c in fixed[1]["tool_calls"]] == ["a"]
    assert all(m.get("tool_call_id") != "zz" for m in fixed)
    assert fixed[-1] == {"role": "assistant", "content": "checking"}  # "d" had no result: turn dropped
    assert cut_off[1]["tool_calls"] == [_call("a"), _call("b")]  # the input is not mutated
    assert pair_tool_calls(MESSAGES) == (MESSAGES, False)


def test_dataset_writer_exports_only_paired_tool_calls(tmp_path: Path) -> None:
    broken = [*MESSAGES, {"role": "assistant", "tool_calls": [_call("late")]}]
    out = write_dataset([text("t1", broken)], tmp_path, "sft", estimate_tokens, max_tokens=10_000)
    assert out.repaired_tool_pairing == ["t1"] and out.trajectory_ids == ["t1"]
    row = json.loads((tmp_path / "sft.jsonl").read_text(encoding="utf-8").splitlines()[0])
    _assert_paired(row["messages"])


def test_failed_write_leaves_no_files(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError), RowWriter(tmp_path, "sft", row_schema()) as writer:
        writer.add({"messages": [], "tools": "[]", "trajectory_id": "t", "spec_id": None})
        raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []


@dataclass
class Summary:
    audit_id: str
    benchmarks: list[str]
    found_overlaps: bool


def test_audit_gate_refuses_then_records_overrides() -> None:
    graph: Any = None  # the injected lookups never touch it
    with pytest.raises(ExportError, match="no contamination audit"):
        check_audit(graph, ["b1"], lookup=lambda g, n: None)
    with pytest.raises(ExportError, match="does not cover b2"):
        check_audit(graph, ["b1", "b2"], lookup=lambda g, n: Summary("a1", ["b1"], False))
    dirty = Summary("a2", ["b1"], True)
    with pytest.raises(ExportError, match="--allow-contaminated"):
        check_audit(graph, ["b1"], lookup=lambda g, n: dirty)
    allowed = check_audit(graph, ["b1"], allow_contaminated=True, lookup=lambda g, n: dirty)
    assert allowed.override is Override.ALLOW_CONTAMINATED and allowed.audit_id == "a2"
    assert check_audit(graph, [], skip_audit=True).override is Override.SKIP_AUDIT
    ok = check_audit(graph, ["b1", "b1"], lookup=lambda g, n: Summary("a3", ["b1", "b9"], False))
    assert ok.override is Override.NONE and ok.benchmarks == ["b1"] and not ok.found_overlaps


def test_canonical_stored_messages_take_the_fast_path_with_the_model_paths_output() -> None:
    from graphforge.models.trajectory import Message

    # The form graphforge.stores.trajectories writes: exclude_none, sorted keys, compact; ToolCall.type
    # present.
    stored = json.dumps(
        [Message.model_validate(m).model_dump(mode="json", exclude_none=True) for m in MESSAGES],
        sort_keys=True,
        separators=(",", ":"),
    )
    fast = conversational_messages(stored, "t1")  # TypedDict path (no nulls)
    slow = conversational_messages(json.dumps(MESSAGES), "t1")  # nulls: Message model path
    assert fast == slow and [list(m) for m in fast] == [list(m) for m in slow]
    assert list(fast[2]) == ["role", "content", "tool_call_id"]
    # A call without "type" is valid for Message (default "function"); both paths fill it the same way.
    call = {"id": "c", "function": {"name": "f", "arguments": "{}"}}
    untyped = [{"role": "assistant", "tool_calls": [call]}]
    assert conversational_messages(json.dumps(untyped), "t2")[0]["tool_calls"][0]["type"] == "function"
    with pytest.raises(SourceFormatError, match="Trajectory t3"):
        conversational_messages('[{"role": "user", "content": 7}]', "t3")


def test_parquet_row_groups_hold_exactly_the_jsonl_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import graphforge.export.writer as writer

    monkeypatch.setattr(writer, "ROW_GROUP_ROWS", 2)  # force several row groups from five rows
    user = {"role": "user", "content": "Sum column B."}
    rows = [text(f"t{i}", [user, {"role": "assistant", "content": f"done é {i}"}]) for i in range(5)]
    out = write_dataset(rows, tmp_path, "sft", estimate_tokens, max_tokens=500)
    assert out.trajectory_ids == [f"t{i}" for i in range(5)]
    parquet = pq.ParquetFile(tmp_path / "sft.parquet")
    assert parquet.metadata.num_row_groups == 3
    lines = [json.loads(line) for line in (tmp_path / "sft.jsonl").read_text(encoding="utf-8").splitlines()]
    table = parquet.read().to_pylist()
    for line, row in zip(lines, table, strict=True):
        assert row["trajectory_id"] == line["trajectory_id"] and row["tools"] == line["tools"]
        assert [{k: v for k, v in m.items() if v is not None} for m in row["messages"]] == line["messages"]

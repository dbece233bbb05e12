"""Trajectory -> trl conversational row, and the tokenizer-free length estimate used to exclude rows."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal, NotRequired

import pyarrow as pa  # type: ignore[import-untyped]
from pydantic import ConfigDict, TypeAdapter, ValidationError, with_config
from typing_extensions import TypedDict  # pydantic needs this TypedDict before Python 3.12

from graphforge.errors import ConfigError, SourceFormatError
from graphforge.models.trajectory import Message

# The paper's packing ceiling: sequences longer than this are excluded (never truncated).
DEFAULT_MAX_TOKENS = 262_144

# Tokenizer-free estimate: UTF-8 bytes / 3 plus a fixed per-message overhead for the chat-template
# markers. Byte-level BPE vocabularies (Qwen, GLM, Llama 3) average ~3.5-4.5 bytes per token on English
# prose and ~3 on JSON, code and numbers, which dominate agent trajectories; dividing by 3 over-counts
# prose, so the estimate errs towards excluding a borderline sequence rather than letting the trainer
# truncate it. Pass the training tokenizer for exact counts.
BYTES_PER_TOKEN = 3.0
MESSAGE_OVERHEAD_TOKENS = 4
ESTIMATE_NAME = "estimate: ceil(utf8_bytes/3) + 4 per message"

_MESSAGES = TypeAdapter(list[Message])


# The canonical stored form (graphforge.stores.trajectories writes messages with exclude_none and every
# ToolCall field) checked as TypedDicts: pydantic-core validates while it parses and hands back plain dicts
# in schema-field order, so the common case never builds a model instance or dumps one again. It accepts a
# strict subset of what Message accepts (no nulls, "type" present) and, on that subset, yields exactly what
# Message + dump_python(exclude_none=True) yields; anything else takes the model path.
@with_config(ConfigDict(extra="forbid"))
class _FunctionCallDict(TypedDict):
    name: str
    arguments: str


@with_config(ConfigDict(extra="forbid"))
class _ToolCallDict(TypedDict):
    id: str
    type: Literal["function"]
    function: _FunctionCallDict


@with_config(ConfigDict(extra="forbid"))
class _MessageDict(TypedDict):
    role: Literal["system", "user", "assistant", "tool"]
    content: NotRequired[str]
    tool_calls: NotRequired[list[_ToolCallDict]]
    tool_call_id: NotRequired[str]
    name: NotRequired[str]


_CANONICAL_MESSAGES = TypeAdapter(list[_MessageDict])

TokenCounter = Callable[[Sequence[dict[str, Any]], str], int]

# One fixed Arrow schema for every export, so Parquet files from different graphs line up and the
# writer never re-infers types from a batch. Tool-call arguments stay JSON text (the OpenAI wire form).
MESSAGE_TYPE = pa.struct(
    [
        ("role", pa.string()),
        ("content", pa.string()),
        (
            "tool_calls",
            pa.list_(
                pa.struct(
                    [
                        ("id", pa.string()),
                        ("type", pa.string()),
                        ("function", pa.struct([("name", pa.string()), ("arguments", pa.string())])),
                    ]
                )
            ),
        ),
        ("tool_call_id", pa.string()),
        ("name", pa.string()),
    ]
)


def row_schema(extra: Sequence[tuple[str, pa.DataType]] = ()) -> pa.Schema:
    """Arrow schema of an exported row: messages, tools (JSON text), ids, then ``extra`` columns."""
    return pa.schema(
        [
            ("messages", pa.list_(MESSAGE_TYPE)),
            ("tools", pa.string()),
            ("trajectory_id", pa.string()),
            ("spec_id", pa.string()),
            *extra,
        ]
    )


def conversational_messages(messages_json: str, trajectory_id: str) -> list[dict[str, Any]]:
    """Stored messages -> OpenAI/trl message dicts (validated, None fields dropped, fixed key order).

    Parsing and validation run in pydantic-core, straight from the stored JSON text; the key order is
    the Message field order (role, content, tool_calls, tool_call_id, name). Stored text in the
    canonical form goes through the TypedDict fast path; the rest is validated against Message.
    """
    try:
        fast: list[dict[str, Any]] = _CANONICAL_MESSAGES.validate_json(messages_json)  # type: ignore[assignment]
        return fast
    except ValidationError:
        pass  # nulls, a missing ToolCall.type or invalid data: let the Message model decide
    try:
        messages = _MESSAGES.validate_json(messages_json)
    except ValueError as exc:
        raise SourceFormatError(
            f"Trajectory {trajectory_id}", f"stored messages are not valid: {exc}"
        ) from exc
    out: list[dict[str, Any]] = _MESSAGES.dump_python(messages, exclude_none=True)
    return out


def canonical_tools(tools_json: str | None) -> str:
    """Tool schemas as canonical JSON text (trl's SFTTrainer json-decodes a string ``tools`` column)."""
    tools = json.loads(tools_json) if tools_json else []
    return json.dumps(tools, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def estimate_tokens(messages: Sequence[dict[str, Any]], tools: str) -> int:
    """Tokenizer-free length estimate of a rendered conversation (see BYTES_PER_TOKEN)."""
    size = _utf8_len(tools) if tools != "[]" else 0
    for m in messages:
        size += len(m["role"])
        content = m.get("content")
        if content:
            size += _utf8_len(content)
        calls = m.get("tool_calls")
        if calls:
            for call in calls:
                function = call["function"]
                size += len(function["name"]) + _utf8_len(function["arguments"])
        size += len(m.get("tool_call_id") or "") + len(m.get("name") or "")
    return math.ceil(size / BYTES_PER_TOKEN) + MESSAGE_OVERHEAD_TOKENS * len(messages)


def _utf8_len(text: str) -> int:
    # str.isascii() reads a flag CPython keeps on every string (O(1)); only non-ASCII text is encoded.
    return len(text) if text.isascii() else len(text.encode("utf-8"))


def has_assistant_turn(messages: Sequence[dict[str, Any]]) -> bool:
    """A row trains on assistant turns; one without any teaches nothing (and breaks assistant masks)."""
    return any(m["role"] == "assistant" and (m.get("content") or m.get("tool_calls")) for m in messages)


def pair_tool_calls(messages: Sequence[dict[str, Any]]) -> tuple[list[dict[str, Any]], bool]:
    """Every assistant tool call answered by one tool message and every tool message answering one call.

    Chat templates and trl pair them up; an imported log cut off after a tool call, or a tool result
    whose call is missing, breaks that. Unanswered calls are removed from their assistant turn (a turn
    left empty is dropped) and orphan tool messages are dropped; nothing else changes. Returns the
    messages and whether anything was repaired.
    """
    out: list[dict[str, Any]] = []
    pending: list[str] = []  # ids of the open assistant turn's calls not answered yet
    owner = -1  # index in ``out`` of that assistant turn
    answered: list[str] = []
    repaired = False

    def close() -> None:
        nonlocal repaired, owner
        if owner >= 0 and pending:
            repaired = True
            turn = dict(out[owner])
            keep = list(answered)
            calls = []
            for call in turn["tool_calls"]:
                if call["id"] in keep:
                    keep.remove(call["id"])
                    calls.append(call)
            if calls:
                turn["tool_calls"] = calls
                out[owner] = turn
            elif turn.get("content"):
                del turn["tool_calls"]
                out[owner] = turn
            else:
                del out[owner]
        pending.clear()
        answered.clear()
        owner = -1

    for m in messages:
        if m["role"] == "tool":
            call_id = m.get("tool_call_id")
            if call_id in pending:
                pending.remove(call_id)
                answered.append(call_id)
                out.append(m)
            else:
                repaired = True  # a result with no call to answer
            continue
        close()
        out.append(m)
        if m["role"] == "assistant" and m.get("tool_calls"):
            owner = len(out) - 1
            pending.extend(call["id"] for call in m["tool_calls"])
    close()
    return (out, True) if repaired else (list(messages), False)


def tokenizer_counter(path: Path) -> tuple[TokenCounter, str]:
    """An exact counter from a local tokenizer: a ``tokenizer.json`` file or a directory with a chat template.

    A directory is loaded with transformers (offline) and counted through its chat template, tools
    included; a bare ``tokenizer.json`` counts the same text the estimate measures.
    """
    if path.is_dir():
        try:
            from transformers import AutoTokenizer
        except ImportError as exc:
            raise ConfigError(
                "counting with a tokenizer directory needs transformers (extra 'train')"
            ) from exc
        tok = AutoTokenizer.from_pretrained(str(path), local_files_only=True)

        def count_templated(messages: Sequence[dict[str, Any]], tools: str) -> int:
            ids = tok.apply_chat_template(list(messages), tools=json.loads(tools) or None, tokenize=True)
            return len(ids["input_ids"] if isinstance(ids, dict) else ids)

        return count_templated, f"tokenizer: {path.name} (chat template)"
    if not path.is_file():
        raise ConfigError(f"{path}: no tokenizer file or directory here")
    try:
        from tokenizers import Tokenizer
    except ImportError as exc:
        raise ConfigError(
            "counting with tokenizer.json needs the tokenizers package (extra 'train')"
        ) from exc
    tokenizer = Tokenizer.from_file(str(path))

    def count_plain(messages: Sequence[dict[str, Any]], tools: str) -> int:
        parts = [tools] if tools != "[]" else []
        for m in messages:
            parts.append(m.get("content") or "")
            parts.extend(
                c["function"]["name"] + c["function"]["arguments"] for c in m.get("tool_calls") or ()
            )
        return sum(len(tokenizer.encode(p).ids) for p in parts if p) + MESSAGE_OVERHEAD_TOKENS * len(messages)

    return count_plain, f"tokenizer: {path.name} + 4 per message"


def counter_for(tokenizer: Path | None) -> tuple[TokenCounter, str]:
    """The counter to use and its name (recorded in the manifest)."""
    if tokenizer is None:
        return estimate_tokens, ESTIMATE_NAME
    return tokenizer_counter(tokenizer)

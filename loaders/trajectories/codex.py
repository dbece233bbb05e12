"""Codex CLI session logs (``~/.codex/sessions/**/rollout-*.jsonl``): session_meta, response_item, event_msg.

Each line is ``{"timestamp", "type", "payload"}``; response items are Responses-API items (message,
function_call, function_call_output, custom_tool_call[_output], local_shell_call, reasoning...).
Older logs put the items at the top level after a ``{"id", "timestamp", "instructions"}`` header;
both shapes are read. Reasoning items carry no message and are not imported.
"""

from __future__ import annotations

import json
from typing import Any

from loaders.trajectories.base import (
    Conversation,
    Issues,
    ParsedFile,
    SourceFile,
    TrajectoryFormatSpec,
    finish,
    obj,
    text_of,
)

SCAFFOLD = "codex"
_ITEM_TYPES = frozenset(
    {
        "message",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call",
        "local_shell_call_output",
        "reasoning",
        "web_search_call",
        "compaction",
        "ghost_snapshot",
    }
)
_SILENT = frozenset({"reasoning", "web_search_call", "ghost_snapshot", "compaction"})
_WRAPPERS = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})


def _output(raw: Any) -> tuple[str, bool]:
    """(text, failed) of a function_call_output; Codex wraps shell results as JSON with an exit code."""
    if isinstance(raw, dict):
        raw = raw.get("content", raw)
    text = text_of(raw)
    try:
        wrapped = json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return text, False
    if isinstance(wrapped, dict) and "output" in wrapped:
        code = (wrapped.get("metadata") or {}).get("exit_code")
        body = text_of(wrapped["output"])
        return (f"exit code {code}\n{body}" if code not in (None, 0) else body), code not in (None, 0)
    return text, False


def _item(conv: Conversation, item: dict[str, Any], issues: Issues, line: int) -> None:
    kind = item.get("type")
    if kind == "message":
        role, text = item.get("role"), text_of(item.get("content"))
        if role in ("system", "developer"):
            conv.system(text)
        elif role == "user":
            conv.user(text)
        elif role == "assistant":
            conv.assistant(text)
        else:
            issues.add(f"message with unknown role {role!r}; skipped", line)
    elif kind in ("function_call", "custom_tool_call", "local_shell_call"):
        call_id = str(item.get("call_id") or item.get("id") or f"call_{line}")
        name = item.get("name") or ("shell" if kind == "local_shell_call" else None)
        if not name:
            issues.add(f"{kind} without a name; skipped", line)
            return
        args = (
            item.get("arguments")
            if kind == "function_call"
            else ({"input": item.get("input")} if kind == "custom_tool_call" else item.get("action") or {})
        )
        conv.tool_call(call_id, str(name), args)
    elif kind in ("function_call_output", "custom_tool_call_output", "local_shell_call_output"):
        output_id = item.get("call_id")
        if not output_id:
            issues.add(f"{kind} without call_id; skipped", line)
            return
        text, failed = _output(item.get("output"))
        conv.tool_result(str(output_id), text, failed)
    elif kind in _SILENT:
        return
    else:
        issues.add(f"unknown response item type {kind!r}; skipped", line)


def parse(src: SourceFile, spec_id: str | None = None) -> ParsedFile:
    issues = Issues(src.path)
    stem = src.name.rsplit(".", 1)[0]
    conv = Conversation()
    session_id, model, cli = None, None, None
    prompt_tokens = completion_tokens = 0
    for line, record in src.lines(issues):
        kind = record.get("type")
        payload = obj(record.get("payload"))
        if kind == "session_meta":
            session_id = payload.get("id") or session_id
            model = payload.get("model") or model
            cli = payload.get("cli_version") or cli
            if payload.get("instructions"):
                conv.system(text_of(payload["instructions"]))
        elif kind == "turn_context":
            model = payload.get("model") or model
        elif kind == "response_item":
            _item(conv, payload, issues, line)
        elif kind == "event_msg":
            if payload.get("type") == "token_count" and isinstance(payload.get("info"), dict):
                total = payload["info"].get("total_token_usage") or {}
                prompt_tokens = int(total.get("input_tokens") or prompt_tokens)
                completion_tokens = int(total.get("output_tokens") or completion_tokens)
        elif kind == "compacted":
            issues.add("history was compacted here; earlier turns are summarised in the log", line)
        elif kind in _ITEM_TYPES:  # legacy layout: items at the top level
            _item(conv, record, issues, line)
        elif kind is None and record.get("record_type") == "state":
            continue
        elif kind is None and "id" in record and "timestamp" in record:  # legacy session header
            session_id = record.get("id") or session_id
            if record.get("instructions"):
                conv.system(text_of(record["instructions"]))
        else:
            issues.add(f"unknown record type {kind!r}; skipped", line)
    return finish(
        conv,
        issues,
        unanswered="has no output in the log (session interrupted?)",
        empty="no assistant turn in this session",
        trajectory_id=f"{SCAFFOLD}:{session_id or stem}",
        spec_id=spec_id,
        scaffold=SCAFFOLD,
        model=str(model or "unknown"),
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        source=f"import:{SCAFFOLD}{'@' + cli if cli else ''}:{src.name}",
    )


def is_record(record: dict[str, Any]) -> bool:
    """A Codex session line: a typed wrapper, a state record, or the older logs' header."""
    kind = record.get("type")
    return kind in _WRAPPERS or record.get("record_type") == "state" or (
        kind is None and "id" in record and "timestamp" in record and "instructions" in record
    )


FORMAT = TrajectoryFormatSpec(
    name="codex",
    title="Codex CLI sessions (rollout-*.jsonl under ~/.codex/sessions)",
    suffixes=frozenset({".jsonl"}),
    parse=parse,
    rank=20,
    record=is_record,
)

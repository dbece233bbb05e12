"""OpenAI chat messages, in the shapes people keep them.

- JSON Lines, one conversation per line: ``{"messages": [...], "tools": [...], ...metadata}``;
- JSON Lines, one message per line (``{"role": ..., "content": ...}``): the file is one conversation;
- a JSON array of messages (one conversation), ``{"messages": [...]}``, or an array of such objects.

Tool calls may be in the API's shape (``{"id", "type", "function": {"name", "arguments"}}``), the
pre-tools ``function_call``, or flat (``{"id", "name", "arguments"}``, as tau2-bench writes them).
"""

from __future__ import annotations

from typing import Any

from graphforge.models.base import stable_hash
from graphforge.models.trajectory import DeliverableFile, Trajectory
from loaders.trajectories.base import (
    Conversation,
    Issues,
    ParsedFile,
    SourceFile,
    TrajectoryFormatSpec,
    build,
    obj,
    text_of,
)
from loaders.trajectories.deliverables import files_as_deliverables

SCAFFOLD = "openai-messages"
_ROLES = {
    "system": "system",
    "developer": "system",
    "user": "user",
    "assistant": "assistant",
    "tool": "tool",
    "function": "tool",
}


def is_message(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("role"), str)


def conversation(raw: list[Any], issues: Issues, line: int | None = None) -> Conversation:
    """A valid message list from OpenAI-style messages; what cannot be placed becomes an issue."""
    conv = Conversation()
    for i, message in enumerate(raw):
        if not isinstance(message, dict):
            issues.add(f"message {i} is not an object", line)
            continue
        role = _ROLES.get(str(message.get("role")))
        if role is None:
            issues.add(f"message {i} has unknown role {message.get('role')!r}; skipped", line)
            continue
        content = text_of(message.get("content"))
        calls = message.get("tool_calls") or []
        if role == "system":
            conv.system(content)
        elif role == "user":
            if isinstance(calls, list) and calls:
                # tau2-bench users call tools too; a chat transcript has no place for that but text.
                described = "; ".join(
                    f"{_call_name(c)}({_call_arguments(c)})" for c in calls if _call_name(c)
                )
                content = f"{content}\n[the user called {described}]".strip()
            conv.user(content)
        elif role == "assistant":
            if message.get("function_call"):  # the pre-tools API: one call, no id
                calls = [{"id": f"call_{i}", "function": message["function_call"]}]
            conv.assistant(content or None)
            for j, call in enumerate(calls if isinstance(calls, list) else []):
                name = _call_name(call)
                if not name:
                    issues.add(f"message {i} tool call {j} has no function name; skipped", line)
                    continue
                call_id = call.get("id") if isinstance(call, dict) else None
                conv.tool_call(str(call_id or f"call_{i}_{j}"), name, _call_arguments(call))
        else:
            if message.get("requestor") == "user":  # tau2-bench: the result of a user's own tool call
                conv.user(f"[tool result for the user] {content}")
                continue
            call_id = message.get("tool_call_id") or (message.get("id") if role == "tool" else None) or (
                f"call_{i - 1}" if message.get("name") else None
            )
            if not call_id:
                issues.add(f"message {i} is a tool result without tool_call_id; skipped", line)
                continue
            conv.tool_result(str(call_id), content, bool(message.get("error")))
    return conv


def _call_name(call: Any) -> str:
    if not isinstance(call, dict):
        return ""
    fn = obj(call.get("function")) or call
    return str(fn.get("name") or "")


def _call_arguments(call: Any) -> Any:
    fn = obj(call.get("function")) or obj(call)
    return fn.get("arguments", "{}")


def trajectory(record: dict[str, Any], raw: list[Any], src: SourceFile, issues: Issues, spec_id: str | None,
               line: int | None = None, where: str = "") -> Trajectory | None:
    """One conversation with the metadata its record carries (id, model, usage, tools, deliverables)."""
    conv = conversation(raw, issues, line)
    if not any(m.role == "assistant" for m in conv.messages):
        issues.add("no assistant message; skipped", line)
        return None
    meta = obj(record.get("metadata"))
    ident = record.get("trajectory_id") or record.get("id") or meta.get("trajectory_id") or meta.get("id")
    usage = record.get("usage") or meta.get("usage") or {}
    usage = obj(usage)
    names = record.get("deliverables") or meta.get("deliverables") or []
    deliverables: list[DeliverableFile] = files_as_deliverables(
        src.path.parent, names if isinstance(names, list) else [], issues, line
    )
    tools = [t for t in record.get("tools") or [] if isinstance(t, dict)]
    where = where or (f":{line}" if line is not None else "")
    return build(
        issues,
        line,
        trajectory_id=f"{SCAFFOLD}:{ident or stable_hash([m.model_dump() for m in conv.messages])}",
        spec_id=spec_id or record.get("spec_id") or meta.get("spec_id"),
        scaffold=SCAFFOLD,
        model=str(record.get("model") or meta.get("model") or "unknown"),
        messages=conv.messages,
        tools=tools,
        steps=conv.steps,
        prompt_tokens=_int(usage.get("prompt_tokens")),
        completion_tokens=_int(usage.get("completion_tokens")),
        cost_usd=_float(record.get("cost_usd") or meta.get("cost_usd")),
        deliverables=deliverables,
        source=f"import:{SCAFFOLD}:{src.name}{where}",
    )


def _int(value: Any) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0


def _float(value: Any) -> float:
    try:
        return float(value or 0.0)
    except (TypeError, ValueError):
        return 0.0


def parse(src: SourceFile, spec_id: str | None = None) -> ParsedFile:
    issues = Issues(src.path)
    out: list[Trajectory] = []
    if src.is_document():
        data = src.document()
        if isinstance(data, dict) and isinstance(data.get("messages"), list):
            records: list[tuple[int | None, dict[str, Any]]] = [(None, data)]
        elif isinstance(data, list) and data and all(is_message(m) for m in data):
            records = [(None, {"messages": data})]
        elif isinstance(data, list):
            records = []
            for i, item in enumerate(data):
                if isinstance(item, dict) and isinstance(item.get("messages"), list):
                    records.append((None, {**item, "_index": i}))
                else:
                    issues.add(f"item {i} is neither a message nor an object with 'messages'; skipped")
        else:
            issues.add("expected a list of messages or an object with a 'messages' list")
            return ParsedFile(issues=issues.items)
        for line, record in records:
            index = record.pop("_index", None)
            t = trajectory(record, record["messages"], src, issues, spec_id, line,
                           where="" if index is None else f"#{index}")
            if t is not None:
                out.append(t)
        return ParsedFile(trajectories=out, issues=issues.items)
    lines = list(src.lines(issues))
    if lines and all(is_message(r) and not isinstance(r.get("messages"), list) for _, r in lines):
        # One message per line: the whole file is one conversation.
        t = trajectory({}, [r for _, r in lines], src, issues, spec_id)
        return ParsedFile(trajectories=[t] if t else [], issues=issues.items)
    for line, record in lines:
        raw = record.get("messages")
        if not isinstance(raw, list) or not raw:
            issues.add("no 'messages' list; skipped", line)
            continue
        t = trajectory(record, raw, src, issues, spec_id, line)
        if t is not None:
            out.append(t)
    return ParsedFile(trajectories=out, issues=issues.items)


def is_document(data: Any) -> bool:
    """``{"messages": [...]}``, or a JSON array of messages or of such objects."""
    if isinstance(data, dict):
        return isinstance(data.get("messages"), list)
    items = [d for d in data if isinstance(d, dict)] if isinstance(data, list) else []
    return bool(items) and (all(is_message(d) for d in items) or isinstance(items[0].get("messages"), list))


def is_record(record: dict[str, Any]) -> bool:
    """A JSON Lines record holding a conversation, or one message."""
    return isinstance(record.get("messages"), list) or is_message(record)


FORMAT = TrajectoryFormatSpec(
    name="openai",
    title="OpenAI messages (a JSON array, {\"messages\": [...]}, or JSON Lines of either)",
    suffixes=frozenset({".json", ".jsonl"}),
    parse=parse,
    rank=90,  # the most general shape: asked last
    document=is_document,
    record=is_record,
)

"""OpenAI-messages JSONL: one conversation per line, ``{"messages": [...], "tools": [...], ...metadata}``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from graphforge.models.base import stable_hash
from graphforge.models.trajectory import DeliverableFile
from loaders.trajectories.base import Conversation, Issues, ParsedFile, build, read_jsonl, text_of
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


def _conversation(raw: list[Any], issues: Issues, line: int) -> Conversation:
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
        if role == "system":
            conv.system(content)
        elif role == "user":
            conv.user(content)
        elif role == "assistant":
            calls = message.get("tool_calls") or []
            if message.get("function_call"):  # the pre-tools API: one call, no id
                calls = [{"id": f"call_{i}", "function": message["function_call"]}]
            conv.assistant(content or None)
            for j, call in enumerate(calls):
                fn = call.get("function") or {}
                if not fn.get("name"):
                    issues.add(f"message {i} tool call {j} has no function name; skipped", line)
                    continue
                conv.tool_call(str(call.get("id") or f"call_{i}_{j}"), fn["name"], fn.get("arguments", "{}"))
        else:
            call_id = message.get("tool_call_id") or (
                f"call_{i - 1}" if role == "tool" and message.get("name") else None
            )
            if not call_id:
                issues.add(f"message {i} is a tool result without tool_call_id; skipped", line)
                continue
            conv.tool_result(str(call_id), content)
    return conv


def parse(path: Path, spec_id: str | None = None) -> ParsedFile:
    issues = Issues(path)
    out: list[Any] = []
    for line, record in read_jsonl(path, issues):
        raw = record.get("messages")
        if not isinstance(raw, list) or not raw:
            issues.add("no 'messages' list; skipped", line)
            continue
        conv = _conversation(raw, issues, line)
        if not conv.messages:
            issues.add("no importable message; skipped", line)
            continue
        meta = record.get("metadata") if isinstance(record.get("metadata"), dict) else {}
        ident = record.get("trajectory_id") or record.get("id") or meta.get("trajectory_id") or meta.get("id")
        usage = record.get("usage") or meta.get("usage") or {}
        deliverables: list[DeliverableFile] = files_as_deliverables(
            path.parent, record.get("deliverables") or meta.get("deliverables") or [], issues, line
        )
        tools = [t for t in record.get("tools") or [] if isinstance(t, dict)]
        trajectory = build(
            issues,
            trajectory_id=f"{SCAFFOLD}:{ident or stable_hash([m.model_dump() for m in conv.messages])}",
            spec_id=spec_id or record.get("spec_id") or meta.get("spec_id"),
            scaffold=SCAFFOLD,
            model=str(record.get("model") or meta.get("model") or "unknown"),
            messages=conv.messages,
            tools=tools,
            steps=conv.steps,
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
            cost_usd=float(record.get("cost_usd") or meta.get("cost_usd") or 0.0),
            deliverables=deliverables,
            source=f"import:{SCAFFOLD}:{path.name}:{line}",
        )
        if trajectory is not None:
            out.append(trajectory)
    return ParsedFile(trajectories=out, issues=issues.items)

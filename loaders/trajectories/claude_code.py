"""Claude Code transcripts (``~/.claude/projects/<project>/<session>.jsonl``).

Lines of type user / assistant carry an Anthropic ``message`` whose content blocks are text, thinking,
tool_use (assistant) and tool_result (user). Records form a tree through uuid / parentUuid: the
conversation is the branch ending at the last record; records on abandoned branches (edits,
rewinds) and sub-agent sidechains are left out and counted in an issue. Claude Code writes one line
per content block of a response; lines sharing a message id are one assistant turn.
"""

from __future__ import annotations

from typing import Any

from loaders.trajectories.base import (
    Conversation,
    Issues,
    ParsedFile,
    SourceFile,
    TrajectoryFormatSpec,
    finish,
    text_of,
)

SCAFFOLD = "claude-code"
_MESSAGE_TYPES = frozenset({"user", "assistant"})
_SILENT_TYPES = frozenset({"summary", "system", "file-history-snapshot", "queue-operation", "progress"})


def _main_branch(
    records: list[tuple[int, dict[str, Any]]], issues: Issues
) -> list[tuple[int, dict[str, Any]]]:
    """The records on the path from the last record back to the root, in order."""
    by_uuid = {r["uuid"]: (line, r) for line, r in records if r.get("uuid")}
    chain: list[tuple[int, dict[str, Any]]] = []
    current = records[-1] if records else None
    seen: set[str] = set()
    while current is not None:
        line, record = current
        chain.append(current)
        seen.add(str(record.get("uuid")))
        parent = record.get("parentUuid") or record.get("logicalParentUuid")
        current = by_uuid.get(parent) if parent and parent not in seen else None
        if parent and current is None and parent not in seen:
            # A parent written to another file (a resumed session) or never written.
            issues.add(f"parent {parent} not in this file; the conversation starts here", line)
    chain.reverse()
    return chain


def parse(src: SourceFile, spec_id: str | None = None) -> ParsedFile:
    issues = Issues(src.path)
    stem = src.name.rsplit(".", 1)[0]
    records: list[tuple[int, dict[str, Any]]] = []
    sidechain = 0
    for line, record in src.lines(issues):
        kind = record.get("type")
        if kind in _SILENT_TYPES:
            if record.get("uuid"):
                records.append((line, record))  # kept as a link in the uuid chain, never as a message
            continue
        if kind not in _MESSAGE_TYPES:
            issues.add(f"unknown record type {kind!r}; skipped", line)
            continue
        if not isinstance(record.get("message"), dict):
            issues.add(f"{kind} record without a message object; skipped", line)
            continue
        if record.get("isSidechain"):
            sidechain += 1
            continue
        records.append((line, record))
    branch = _main_branch(records, issues)
    off_branch = sum(r.get("type") in _MESSAGE_TYPES for _, r in records) - sum(
        r.get("type") in _MESSAGE_TYPES for _, r in branch
    )
    if off_branch:
        issues.add(f"{off_branch} message records on abandoned branches (edits or rewinds) left out")
    if sidechain:
        issues.add(f"{sidechain} sub-agent (sidechain) records left out")

    conv = Conversation()
    session, model, cli = stem, None, None
    usage: dict[str, tuple[int, int]] = {}
    last_message_id: str | None = None
    for line, record in branch:
        if record.get("type") not in _MESSAGE_TYPES:
            continue
        session = str(record.get("sessionId") or session)
        cli = record.get("version") or cli
        message = record["message"]
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": text_of(content)}]
        if record["type"] == "assistant":
            model = message.get("model") or model
            message_id = message.get("id") or record.get("uuid")
            if isinstance(message.get("usage"), dict):
                u = message["usage"]
                prompt = sum(
                    int(u.get(k) or 0)
                    for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
                )
                usage[str(message_id)] = (prompt, int(u.get("output_tokens") or 0))
            if message_id != last_message_id:
                conv.assistant(None)
                last_message_id = message_id
            for block in blocks:
                kind = block.get("type") if isinstance(block, dict) else None
                if kind == "text" and block.get("text"):
                    turn = conv.messages[-1]
                    if turn.role == "assistant" and not turn.tool_calls:
                        turn.content = f"{turn.content}\n{block['text']}" if turn.content else block["text"]
                    else:
                        conv.assistant(block["text"])
                elif kind == "tool_use":
                    conv.tool_call(str(block.get("id")), str(block.get("name")), block.get("input") or {})
                elif kind in ("thinking", "redacted_thinking"):
                    continue
                else:
                    issues.add(f"unknown assistant content block {kind!r}; skipped", line)
        else:
            last_message_id = None
            texts = []
            for block in blocks:
                kind = block.get("type") if isinstance(block, dict) else None
                if kind == "tool_result":
                    conv.tool_result(
                        str(block.get("tool_use_id")),
                        text_of(block.get("content")),
                        bool(block.get("is_error")),
                    )
                elif kind == "text":
                    texts.append(str(block.get("text") or ""))
                elif kind in ("image", "document"):
                    texts.append(f"[{kind} attached]")
                else:
                    issues.add(f"unknown user content block {kind!r}; skipped", line)
            conv.user("\n".join(t for t in texts if t))
    # An assistant turn holding only thinking blocks leaves an empty message: drop those.
    conv.messages = [m for m in conv.messages if m.role != "assistant" or m.content or m.tool_calls]
    return finish(
        conv,
        issues,
        unanswered="has no result in the transcript",
        empty="no assistant turn in this transcript",
        trajectory_id=f"{SCAFFOLD}:{session}",
        spec_id=spec_id,
        scaffold=SCAFFOLD,
        model=str(model or "unknown"),
        prompt_tokens=sum(p for p, _ in usage.values()),
        completion_tokens=sum(c for _, c in usage.values()),
        source=f"import:{SCAFFOLD}{'@' + str(cli) if cli else ''}:{src.name}",
    )


_TYPES = frozenset({"user", "assistant", "summary", "system", "file-history-snapshot", "queue-operation",
                    "progress"})


def is_record(record: dict[str, Any]) -> bool:
    """A Claude Code transcript line: a known type with the session's ids."""
    return record.get("type") in _TYPES and any(k in record for k in ("uuid", "sessionId", "leafUuid"))


FORMAT = TrajectoryFormatSpec(
    name="claude-code",
    title="Claude Code transcripts (the .jsonl files under ~/.claude/projects)",
    suffixes=frozenset({".jsonl"}),
    parse=parse,
    rank=30,
    record=is_record,
)

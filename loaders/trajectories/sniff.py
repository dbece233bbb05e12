"""Tell a log's format from its content (``--format auto``); a reason when it is none graphforge reads."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from graphforge.errors import SourceFormatError
from loaders.trajectories import openhands, swe_agent, tau_bench
from loaders.trajectories.base import Issues, SourceFile
from loaders.trajectories.openai_messages import is_message


class TrajectoryFormat(StrEnum):
    AUTO = "auto"
    OPENAI = "openai"
    CODEX = "codex"
    OPENHANDS = "openhands"
    CLAUDE_CODE = "claude-code"
    SWE_AGENT = "swe-agent"
    TAU_BENCH = "tau-bench"


_CODEX_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})
_CLAUDE_TYPES = frozenset({"user", "assistant", "summary", "system", "file-history-snapshot",
                           "queue-operation", "progress"})
_LINES_LOOKED_AT = 50


def sniff(src: SourceFile) -> TrajectoryFormat | str:
    """The format of ``src``, or why it is not a trajectory log (SourceFormatError if unreadable)."""
    if src.path.suffix.lower() == ".traj":
        return TrajectoryFormat.SWE_AGENT
    body = src.text.lstrip()
    if not body:
        return "empty file"
    if body[0] not in "{[":
        return f"not JSON or JSON Lines (starts with {body[:20]!r})"
    if src.is_document():
        return _document(src.document())
    issues = Issues(src.path)
    records = []
    try:
        for _, record in src.lines(issues):
            records.append(record)
            if len(records) >= _LINES_LOOKED_AT:
                break
    except SourceFormatError as exc:
        return exc.problem
    if not records:
        try:
            src.document()
        except SourceFormatError as exc:
            return exc.problem
    for record in records:
        found = _line(record)
        if found is not None:
            return found
    keys = {k: None for r in records for k in r}
    return f"JSON Lines whose records (keys {_keys(keys)}) match no trajectory format graphforge reads"


def _document(data: Any) -> TrajectoryFormat | str:
    if swe_agent.looks_like(data):
        return TrajectoryFormat.SWE_AGENT
    if tau_bench.is_tau2(data) or tau_bench.is_result(data):
        return TrajectoryFormat.TAU_BENCH
    if openhands.is_eval_record(data) or openhands.is_stream(data):
        return TrajectoryFormat.OPENHANDS
    if isinstance(data, dict) and isinstance(data.get("messages"), list):
        return TrajectoryFormat.OPENAI
    if isinstance(data, list):
        items = [d for d in data if isinstance(d, dict)]
        if not items:
            return "a JSON array without objects" if data else "an empty JSON array"
        first = items[0]
        if all(is_message(d) for d in items):
            return TrajectoryFormat.OPENAI
        if tau_bench.is_result(first):
            return TrajectoryFormat.TAU_BENCH
        if isinstance(first.get("messages"), list):
            return TrajectoryFormat.OPENAI
        if openhands.is_stream(data):
            return TrajectoryFormat.OPENHANDS
        return f"a JSON array of objects (keys {_keys(first)}) that is no trajectory format graphforge reads"
    if isinstance(data, dict):
        found = _line(data)  # JSON Lines of one line
        if found is not None:
            return found
        return f"a JSON object (keys {_keys(data)}) that is no trajectory format graphforge reads"
    return f"a JSON {type(data).__name__}, not a trajectory"


def _line(record: dict[str, Any]) -> TrajectoryFormat | None:
    kind = record.get("type")
    if kind in _CODEX_TYPES or record.get("record_type") == "state" or (
        kind is None and "id" in record and "timestamp" in record and "instructions" in record
    ):
        return TrajectoryFormat.CODEX
    if kind in _CLAUDE_TYPES and ("uuid" in record or "sessionId" in record or "leafUuid" in record):
        return TrajectoryFormat.CLAUDE_CODE
    if openhands.is_eval_record(record):
        return TrajectoryFormat.OPENHANDS
    if tau_bench.is_result(record):
        return TrajectoryFormat.TAU_BENCH
    if isinstance(record.get("messages"), list) or is_message(record):
        return TrajectoryFormat.OPENAI
    return None


def _keys(data: dict[str, Any]) -> str:
    return ", ".join(repr(str(k)[:30]) for k in sorted(data)[:8])

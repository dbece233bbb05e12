"""What every trajectory importer shares: issues with file and line, JSONL reading, message assembly."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from graphforge.errors import SourceFormatError
from graphforge.models.trajectory import FunctionCall, Message, ToolCall, Trajectory

# Tool outputs that report a failure start with this (admission cleaning counts them across scaffolds).
ERROR = "ERROR"


class ImportIssue(BaseModel):
    """A record that could not be imported (or only partly): reported, never fatal."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    file: str
    line: int | None = None  # 1-based JSONL line; for JSON files the event index is in ``record``
    record: str = ""  # e.g. "event 14 (id=27)"
    problem: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else self.file
        return f"{where}{' ' + self.record if self.record else ''}: {self.problem}"


class ParsedFile(BaseModel):
    """The trajectories read from one file and the issues met on the way."""

    trajectories: list[Trajectory] = []
    issues: list[ImportIssue] = []


class Issues:
    """Collects issues for one file."""

    def __init__(self, path: Path) -> None:
        self.path = str(path)
        self.items: list[ImportIssue] = []

    def add(self, problem: str, line: int | None = None, record: str = "") -> None:
        self.items.append(ImportIssue(file=self.path, line=line, record=record, problem=problem[:500]))


def read_jsonl(path: Path, issues: Issues) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each JSON-object line; blank lines skipped, bad lines reported."""
    try:
        handle = path.open(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise SourceFormatError(path, f"cannot read: {exc.strerror or exc}") from exc
    with handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as exc:
                issues.add(f"not JSON ({exc.msg} at column {exc.colno})", number)
                continue
            if not isinstance(value, dict):
                issues.add(f"expected a JSON object, got {type(value).__name__}", number)
                continue
            yield number, value


def read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except OSError as exc:
        raise SourceFormatError(path, f"cannot read: {exc.strerror or exc}") from exc
    except json.JSONDecodeError as exc:
        raise SourceFormatError(path, f"not JSON ({exc.msg} at line {exc.lineno})") from exc


def text_of(content: Any) -> str:
    """Text of a message content in any of the usual shapes (string, list of typed parts, None)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, Mapping):
        for key in ("text", "content", "output"):
            if key in content:
                return text_of(content[key])
        return json.dumps(content, ensure_ascii=False)
    if isinstance(content, list):
        return "\n".join(t for t in (text_of(part) for part in content) if t)
    return str(content)


def arguments_text(value: Any) -> str:
    """Tool-call arguments as JSON text, as the OpenAI API carries them."""
    if isinstance(value, str):
        return value
    return json.dumps(value if value is not None else {}, ensure_ascii=False)


class Conversation:
    """Builds a valid OpenAI message list: calls ride on an assistant turn, results follow."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self._open_calls = False  # the last assistant turn can still take more tool calls

    def system(self, text: str) -> None:
        if text:
            self.messages.append(Message(role="system", content=text))
            self._open_calls = False

    def user(self, text: str) -> None:
        if text:
            self.messages.append(Message(role="user", content=text))
            self._open_calls = False

    def assistant(self, text: str | None) -> None:
        self.messages.append(Message(role="assistant", content=text or None))
        self._open_calls = True

    def tool_call(self, call_id: str, name: str, arguments: Any, thought: str | None = None) -> None:
        """Add a call to the open assistant turn, or open one (carrying ``thought`` as its text)."""
        last = self.messages[-1] if self.messages else None
        if not (self._open_calls and last is not None and last.role == "assistant"):
            self.assistant(thought)
            last = self.messages[-1]
        elif thought and not last.content:
            last.content = thought
        call = ToolCall(id=call_id, function=FunctionCall(name=name, arguments=arguments_text(arguments)))
        last.tool_calls = [*(last.tool_calls or []), call]

    def tool_result(self, call_id: str, text: str, failed: bool = False) -> None:
        if failed and not text.startswith(ERROR):
            text = f"{ERROR}: {text}" if text else f"{ERROR}: the tool call failed"
        self.messages.append(Message(role="tool", tool_call_id=call_id, content=text))
        self._open_calls = False

    def pending_call_ids(self) -> set[str]:
        made = {c.id for m in self.messages if m.role == "assistant" for c in (m.tool_calls or [])}
        answered = {m.tool_call_id for m in self.messages if m.role == "tool"}
        return made - answered

    @property
    def steps(self) -> int:
        return sum(m.role == "assistant" for m in self.messages)


def build(issues: Issues, **fields: Any) -> Trajectory | None:
    """A Trajectory, or None with an issue when the fields do not make a valid one."""
    try:
        return Trajectory(**fields)
    except ValidationError as exc:
        issues.add(f"not a valid trajectory: {exc.errors()[0]['msg']}")
        return None


def finish(conv: Conversation, issues: Issues, *, unanswered: str, empty: str, **fields: Any) -> ParsedFile:
    """The end of every importer: report unanswered calls, refuse a conversation without an assistant
    turn (``empty`` says why), else build the trajectory from ``conv`` and ``fields``."""
    for call_id in sorted(conv.pending_call_ids()):
        issues.add(f"tool call {call_id} {unanswered}")
    if not any(m.role == "assistant" for m in conv.messages):
        issues.add(empty)
        return ParsedFile(issues=issues.items)
    trajectory = build(issues, messages=conv.messages, steps=conv.steps, **fields)
    return ParsedFile(trajectories=[trajectory] if trajectory else [], issues=issues.items)

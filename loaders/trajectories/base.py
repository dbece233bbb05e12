"""What every trajectory importer shares: the source file, issues, guarded JSON reading, message assembly."""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from graphforge.errors import SourceFormatError
from graphforge.models.trajectory import FunctionCall, Message, ToolCall, Trajectory

# Tool outputs that report a failure start with this (admission cleaning counts them across scaffolds).
ERROR = "ERROR"
# Real logs nest about ten levels (an OpenHands event's tool_call_metadata.model_response.choices...);
# anything far deeper is hostile or broken and is refused instead of recursing into it.
MAX_JSON_DEPTH = 100
# A log bigger than this is refused unread (a sparse or runaway file must not exhaust memory).
MAX_FILE_BYTES = 1 << 30
_SURROGATE = re.compile("[\ud800-\udfff]")


def shown(path: Path | str) -> str:
    """A path as text that prints and stores safely: undecodable name bytes become \\xNN escapes."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


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
        self.path = shown(path)
        self.items: list[ImportIssue] = []

    def add(self, problem: str, line: int | None = None, record: str = "") -> None:
        self.items.append(ImportIssue(file=self.path, line=line, record=record, problem=problem[:500]))


def _checked(value: Any, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``value`` with lone surrogates (from ``\\ud800`` escapes) replaced by U+FFFD; ValueError when it
    nests deeper than ``max_depth``. Iterative, so hostile depth cannot exhaust the stack."""

    def clean(text: str) -> str:
        return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text

    if isinstance(value, str):
        return clean(value)
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > max_depth:
            raise ValueError(f"JSON nested deeper than {max_depth} levels")
        if isinstance(node, dict):
            for key in list(node):
                item = node[key]
                if isinstance(item, str):
                    node[key] = clean(item)
                elif isinstance(item, (dict, list)):
                    stack.append((item, depth + 1))
                if isinstance(key, str) and _SURROGATE.search(key):
                    node[clean(key)] = node.pop(key)
        elif isinstance(node, list):
            for i, item in enumerate(node):
                if isinstance(item, str):
                    node[i] = clean(item)
                elif isinstance(item, (dict, list)):
                    stack.append((item, depth + 1))
    return value


def loads(text: str, one_line: bool = False) -> Any:
    """json.loads, checked: ValueError (with the reason) for bad JSON, hostile depth included."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"column {exc.colno}" if one_line else f"line {exc.lineno} column {exc.colno}"
        raise ValueError(f"{exc.msg.removesuffix(' at')} at {where}") from exc
    except RecursionError as exc:
        raise ValueError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels") from exc
    return _checked(value)


class SourceFile:
    """One log file, read once: its text, its JSON document (if it is one) and its JSON lines."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.name = shown(path.name)
        self._text: str | None = None
        self._document: Any = None
        self._document_error: str | None = None
        self._parsed = False

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = read_text(self.path)
        return self._text

    def document(self) -> Any:
        """The whole file as one JSON value; SourceFormatError when it is not one."""
        if not self._parsed:
            self._parsed = True
            try:
                self._document = loads(self.text)
            except ValueError as exc:
                self._document_error = str(exc)
        if self._document_error is not None:
            raise SourceFormatError(shown(self.path), f"not valid JSON ({self._document_error})")
        return self._document

    def is_document(self) -> bool:
        try:
            self.document()
        except SourceFormatError:
            return False
        return True

    def lines(self, issues: Issues) -> Iterator[tuple[int, dict[str, Any]]]:
        """(line number, object) for each JSON-object line; blank lines skipped, bad lines reported.

        A file that is one JSON document spread over several lines (pretty-printed) is not JSON
        Lines: that is one SourceFormatError, not a warning per line.
        """
        body = self.text.strip()
        first = next((ln for ln in body.split("\n") if ln.strip()), "")
        if not _is_json(first):
            if "\n" in body and self.is_document():
                raise SourceFormatError(shown(self.path), "one JSON document over several lines, not JSON "
                                                          "Lines (one object per line)")
            if self.path.suffix.lower() == ".json":
                self.document()  # a .json file that is not JSON: one error, not one per line
        for number, line in enumerate(self.text.split("\n"), start=1):
            if not line.strip():
                continue
            try:
                value = loads(line, one_line=True)
            except ValueError as exc:
                issues.add(f"not JSON ({exc})", number)
                continue
            if not isinstance(value, dict):
                issues.add(f"expected a JSON object, got {type(value).__name__}", number)
                continue
            yield number, value


def _is_json(line: str) -> bool:
    try:
        loads(line, one_line=True)
    except ValueError:
        return False
    return True


def read_text(path: Path) -> str:
    """The file's text (UTF-8, bad bytes replaced); SourceFormatError for anything but a readable
    regular file of sane size (FIFOs, devices and giants are refused unread)."""
    name = shown(path)
    try:
        info = path.stat()
    except OSError as exc:
        raise SourceFormatError(name, f"cannot read: {exc.strerror or exc}") from exc
    if not stat.S_ISREG(info.st_mode):
        raise SourceFormatError(name, "not a regular file (FIFO, device or socket); not read")
    if info.st_size > MAX_FILE_BYTES:
        raise SourceFormatError(name, f"{info.st_size} bytes, over the {MAX_FILE_BYTES} byte limit for a log")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SourceFormatError(name, f"cannot read: {exc.strerror or exc}") from exc
    return raw.decode("utf-8-sig", errors="replace")


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


def build(issues: Issues, line: int | None = None, **fields: Any) -> Trajectory | None:
    """A Trajectory, or None with an issue when the fields do not make a valid one."""
    try:
        return Trajectory(**fields)
    except ValidationError as exc:
        issues.add(f"not a valid trajectory: {exc.errors()[0]['msg']}", line)
        return None


def close(conv: Conversation, issues: Issues, *, unanswered: str, empty: str, line: int | None = None,
          **fields: Any) -> Trajectory | None:
    """The end of every conversation: report unanswered calls, refuse one without an assistant turn
    (``empty`` says why), else build the trajectory from ``conv`` and ``fields``."""
    for call_id in sorted(conv.pending_call_ids()):
        issues.add(f"tool call {call_id} {unanswered}", line)
    made: set[str] = set()
    kept: list[Message] = []
    for message in conv.messages:
        made.update(c.id for c in message.tool_calls or [])
        if message.role == "tool" and message.tool_call_id not in made:
            issues.add(f"tool result for call {message.tool_call_id}, which was never made; dropped", line)
            continue
        kept.append(message)
    conv.messages = kept
    if not any(m.role == "assistant" for m in conv.messages):
        issues.add(empty, line)
        return None
    return build(issues, line, messages=conv.messages, steps=conv.steps, **fields)


def finish(conv: Conversation, issues: Issues, *, unanswered: str, empty: str, **fields: Any) -> ParsedFile:
    """``close`` for a file that holds one conversation."""
    trajectory = close(conv, issues, unanswered=unanswered, empty=empty, **fields)
    return ParsedFile(trajectories=[trajectory] if trajectory else [], issues=issues.items)


@dataclass(frozen=True)
class TrajectoryFormatSpec:
    """A trajectory format graphforge reads: each format module defines one as ``FORMAT``.

    Sniffing (``--format auto``) asks the formats in ``rank`` order (lowest first: the most specific
    shapes before the general ones) whether they claim a file by its name, a whole JSON document, or a
    JSON Lines record; the first that does reads the file with ``parse``.
    """

    name: str  # the --format value and the FORMAT of import:FORMAT:PATH ("codex")
    title: str  # what it reads, for help texts and the docs
    suffixes: frozenset[str]  # file names looked for in a folder (".jsonl")
    parse: Callable[[SourceFile, str | None], ParsedFile]  # (file, spec id) -> trajectories and issues
    rank: int = 50
    document: Callable[[Any], bool] | None = None  # claims a whole JSON document
    record: Callable[[dict[str, Any]], bool] | None = None  # claims one JSON Lines record
    path: Callable[[Path], bool] | None = None  # claims a file by its name alone
    folder: Callable[[Path], bool] | None = None  # claims a folder as one log (OpenHands events/)
    parse_folder: Callable[[Path, str | None], ParsedFile] | None = None
    evaluable: bool = True  # `eval run --model NAME=import:FORMAT:PATH` accepts it (logs carry task ids)


def obj(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one (a log's optional or malformed section)."""
    return value if isinstance(value, dict) else {}

"""The agent's tools: list, read (parsed), write files and run Python, confined to one working folder."""

from __future__ import annotations

import copy
import difflib
import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from graphforge.agent.sandbox import SandboxLimits, require_sandbox, run_python

# Failed tool results start with this marker: admission cleaning counts them (tool-failure rate).
ERROR = "ERROR"
# Deliverable formats an agent builds with run_python (openpyxl, python-docx, python-pptx), not write_file.
BINARY_FORMATS = frozenset({"xlsx", "docx", "pptx"})
_TEXT_SUFFIXES = frozenset(
    {
        ".txt",
        ".md",
        ".csv",
        ".tsv",
        ".json",
        ".py",
        ".yaml",
        ".yml",
        ".xml",
        ".log",
        ".ini",
        ".toml",
        ".sql",
        ".tex",
        ".rst",
    }
)


def writing_tool(name: str) -> str:
    """The tool that writes a deliverable of this name: run_python for XLSX/DOCX/PPTX, else write_file."""
    return "run_python" if PurePosixPath(name).suffix.lower().lstrip(".") in BINARY_FORMATS else "write_file"


def how_to_write(name: str) -> str:
    """How a deliverable of this name is written, in the words the tools' answers use."""
    tool = writing_tool(name)
    return "run_python (openpyxl, python-docx or python-pptx)" if tool == "run_python" else tool


def _tool(name: str, description: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": False,
            },
        },
    }


TOOL_SCHEMAS: list[dict[str, Any]] = [
    _tool(
        "list_files",
        "List the files in the working directory (or in one of its folders), with sizes.",
        {"path": {"type": "string", "description": "Folder relative to the working directory; default '.'"}},
        [],
    ),
    _tool(
        "read_file",
        "Read a file as text. Spreadsheets, PDFs, Word and PowerPoint files are parsed: each "
        "piece of text is prefixed with its location, e.g. [sheet=Ledger!A2:D2] or [page=3].",
        {
            "path": {"type": "string"},
            "offset": {"type": "integer", "description": "Character offset to start from (for long files)"},
        },
        ["path"],
    ),
    _tool(
        "write_file",
        "Write a text file (Markdown, CSV, JSON, Python...). For XLSX or DOCX deliverables "
        "use run_python with openpyxl or python-docx.",
        {"path": {"type": "string"}, "content": {"type": "string"}},
        ["path", "content"],
    ),
    _tool(
        "run_python",
        "Run a Python 3 script in a sandbox holding a copy of the working directory "
        "(numpy, polars, openpyxl, python-docx available; no network, no subprocesses; only the "
        "working directory and /tmp can be written). Files it writes are "
        "copied back into the working directory. Returns stdout and stderr.",
        {"code": {"type": "string"}},
        ["code"],
    ),
]
TOOL_NAMES = frozenset(t["function"]["name"] for t in TOOL_SCHEMAS)


def schemas_writing(name: str) -> list[dict[str, Any]]:
    """The tool schemas with write_file's ``path`` fixed to ``name``: for a turn whose call is forced to
    write that deliverable. The listing a chat template renders (names and types) is unchanged."""
    schemas = copy.deepcopy(TOOL_SCHEMAS)
    for tool in schemas:
        if tool["function"]["name"] == "write_file":
            tool["function"]["parameters"]["properties"]["path"]["enum"] = [name]
    return schemas


def _as_posix(rel: str) -> PurePosixPath:
    """A path as the agent wrote it, with Windows separators read as '/'."""
    return PurePosixPath(rel.replace("\\", "/"))


class ToolFailure(Exception):
    """A tool call that cannot be carried out; its message goes back to the agent."""


@dataclass
class ToolBox:
    """Executes tool calls inside ``workdir``; every path is resolved and kept inside it."""

    workdir: Path
    limits: SandboxLimits = field(default_factory=SandboxLimits)
    max_read_chars: int = 20_000
    max_write_bytes: int = 5_000_000
    deliverables: tuple[str, ...] = ()  # the files the task asks for: read before written, they say so
    calls: int = 0
    failures: int = 0

    def __post_init__(self) -> None:
        # A loop whose Python tool cannot run behind the OS boundary refuses to start (SandboxUnavailable)
        # rather than spend model calls on a task it cannot finish; code never runs unsandboxed.
        require_sandbox()

    def _resolve(self, rel: str) -> Path:
        if not isinstance(rel, str) or not rel.strip():
            raise ToolFailure("a path is required")
        pure = _as_posix(rel)
        if pure.is_absolute() or ".." in pure.parts:
            raise ToolFailure(f"path {rel!r} must be relative to the working directory and stay inside it")
        root = self.workdir.resolve()
        target = (root / pure).resolve()
        if target != root and root not in target.parents:
            raise ToolFailure(f"path {rel!r} leaves the working directory")
        return target

    def closest(self, path: str, folders: bool = False) -> list[str]:
        """The existing paths closest to ``path`` (by the whole path, then by the name alone, as a shell's
        "did you mean"), at most three, closest first."""
        root = self.workdir.resolve()
        # sorted: files of one name in several folders come in the same order on every filesystem, so a
        # replay in a fresh copy answers exactly what was recorded
        names = {p.relative_to(root).as_posix(): p.name for p in sorted(root.rglob("*"))
                 if (p.is_dir() if folders else p.is_file())}
        wanted = _as_posix(path)
        close = difflib.get_close_matches(wanted.as_posix(), list(names), n=3, cutoff=0.6)
        by_name = difflib.get_close_matches(wanted.name, list(names.values()), n=3, cutoff=0.6)
        close += [rel for rel, name in names.items() if name in by_name and rel not in close]
        return close[:3]

    def _nearest(self, path: str, folders: bool) -> str:
        """The end of a not-found message: the closest existing paths, else the hint to list the folder. A
        small model that misremembers a name it was shown gets the real one back instead of repeating its
        guess."""
        close = self.closest(path, folders)
        if not close:
            return "; call list_files to see what exists"
        return "; the closest that exist: " + ", ".join(repr(c) for c in close)

    def list_files(self, path: str = ".") -> str:
        folder = self._resolve(path) if path not in ("", ".") else self.workdir.resolve()
        if folder.is_file():
            raise ToolFailure(f"{path!r} is a file, not a folder: read it with read_file")
        if not folder.is_dir():
            raise ToolFailure(f"no folder {path!r}{self._nearest(path, folders=True)}")
        rows = [
            f"{p.relative_to(self.workdir.resolve()).as_posix()}\t{p.stat().st_size} bytes"
            for p in sorted(folder.rglob("*"))
            if p.is_file()
        ]
        return "\n".join(rows) if rows else "(no files)"

    def _to_write(self, path: str) -> str:
        """The end of a not-found message for a deliverable the task asks for: it is written, not read."""
        name = _as_posix(path).name
        if name not in {_as_posix(d).name for d in self.deliverables}:
            return ""
        return f"; {name} is a deliverable of this task, not an input: write it with {how_to_write(name)}"

    def read_file(self, path: str, offset: int = 0) -> str:
        target = self._resolve(path)
        if not target.is_file():
            raise ToolFailure(f"no file {path!r}{self._to_write(path) or self._nearest(path, folders=False)}")
        text = read_as_text(target)
        return page(path, text, offset, self.max_read_chars)

    def write_file(self, path: str, content: str) -> str:
        target = self._resolve(path)
        data = content.encode("utf-8")
        if len(data) > self.max_write_bytes:
            raise ToolFailure(f"content is {len(data)} bytes, over the {self.max_write_bytes}-byte limit")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        return f"wrote {path} ({len(data)} bytes)"

    def run_python(self, code: str) -> str:
        result = run_python(code, self.workdir, self.limits)
        parts = [f"exit code: {'timeout' if result.timed_out else result.exit_code}"]
        if result.stdout:
            parts.append(f"stdout:\n{result.stdout}")
        if result.stderr:
            parts.append(f"stderr:\n{result.stderr}")
        if result.changed_files:
            parts.append("files written: " + ", ".join(result.changed_files))
        body = "\n".join(parts)
        if not result.ok:
            raise ToolFailure(body)
        return body

    def call(self, name: str, arguments: dict[str, Any] | str) -> tuple[str, bool]:
        """Run one tool call; returns (result text, ok). Failures come back as ``ERROR: ...`` text."""
        self.calls += 1
        handlers: dict[str, Callable[..., str]] = {
            "list_files": self.list_files,
            "read_file": self.read_file,
            "write_file": self.write_file,
            "run_python": self.run_python,
        }
        try:
            if isinstance(arguments, str):
                try:
                    arguments = json.loads(arguments or "{}")
                except json.JSONDecodeError as exc:
                    raise ToolFailure(f"arguments are not valid JSON ({exc.msg})") from exc
            if not isinstance(arguments, dict):
                raise ToolFailure("arguments must be a JSON object")
            if name not in handlers:
                raise ToolFailure(f"unknown tool {name!r}; available: {', '.join(sorted(handlers))}")
            try:
                return handlers[name](**arguments), True
            except TypeError as exc:
                raise ToolFailure(f"bad arguments for {name}: {exc}") from exc
        except ToolFailure as exc:
            self.failures += 1
            return f"{ERROR}: {exc}", False
        except OSError as exc:
            self.failures += 1
            return f"{ERROR}: {type(exc).__name__}: {exc.strerror or exc}", False


def page(path: str, text: str, offset: Any, size: int) -> str:
    """One page of a file for read_file: a header naming the range, the text, and how to go on.

    Paging is not truncation: nothing is lost, the next call reads on. So the markers say where the page
    sits ("[page: ...]", "[next page: ...]") and never "[truncated", which admission cleaning counts as
    output cut short; and the header keeps a file that itself starts with "ERROR" or is a JSON object
    with an "error" key from reading as a failed tool call.
    """
    try:
        start = max(0, int(offset or 0))
    except (TypeError, ValueError) as exc:
        raise ToolFailure(f"offset must be a whole number of characters, not {offset!r}") from exc
    if start > len(text):
        raise ToolFailure(f"offset {start} is past the end of {path} ({len(text)} characters)")
    chunk = text[start : start + size]
    end = start + len(chunk)
    head = f"[page: {path}, characters {start}-{end} of {len(text)}]"
    if end < len(text):
        left = len(text) - end
        return f"{head}\n{chunk}\n[next page: call read_file with offset={end} ({left} characters left)]"
    return f"{head}\n{chunk}"


# Parsed text by the file's sha256: the same bytes always read the same, so a process that reads one file
# many times (the oracle's K candidates, export verify's replays, an evaluation's players) parses it once.
_PARSED: OrderedDict[str, str] = OrderedDict()
_PARSED_LIMIT_CHARS = 64_000_000
_PARSED_LOCK = threading.Lock()


def read_as_text(path: Path) -> str:
    """A file as the agent should see it: parsed spans for office formats and PDFs, decoded text otherwise."""
    if path.suffix.lower() in _TEXT_SUFFIXES:
        return path.read_bytes().decode("utf-8", "replace")
    key = hashlib.sha256(path.read_bytes()).hexdigest()
    with _PARSED_LOCK:
        if key in _PARSED:
            _PARSED.move_to_end(key)
            return _PARSED[key]
    text = _parse_as_text(path)
    with _PARSED_LOCK:
        _PARSED[key] = text
        total = sum(len(t) for t in _PARSED.values())
        while total > _PARSED_LIMIT_CHARS and len(_PARSED) > 1:
            _, dropped = _PARSED.popitem(last=False)
            total -= len(dropped)
    return text


def _parse_as_text(path: Path) -> str:
    try:
        from graphforge.parsers import parse_file
    except ImportError:  # parsers not installed in a slimmed-down build: plain decoding still works
        return path.read_bytes().decode("utf-8", "replace")
    parsed = parse_file(path)
    if not parsed.valid:
        raise ToolFailure(f"cannot read {path.name} as {parsed.format}: {parsed.invalid_reason}")
    if not parsed.spans:
        return f"({parsed.format} file with no extractable text)"
    lines = []
    for span in parsed.spans:
        lines.append(f"[{span.locator}] {span.text}")
        if span.formulas_json:
            lines.append(f"  formulas: {span.formulas_json}")
    return "\n".join(lines)

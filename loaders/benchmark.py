"""Read a benchmark folder (task records in JSON/JSONL plus reference files) into graphforge models.

Layout, GDPVal-like::

    DIR/tasks.jsonl            one task per line (any *.jsonl or *.json at the top level is read)
    DIR/reference_files/...    the files tasks name in ``reference_files`` (paths relative to DIR or to
                               DIR/reference_files); every file under DIR other than the task records
                               is loaded as a benchmark file, referenced or not

A task record needs an id (``task_id`` | ``id``) and a prompt (``prompt`` | ``instruction`` |
``question``); ``occupation``, ``soc_code``, ``sector``, ``reference_files`` and ``deliverables`` (the
file names the prompt asks the agent to write, each a relative path inside its working folder) are
optional.

A pure reader: the ``load_benchmark`` stage writes what ``read_benchmark`` returns.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from graphforge.errors import SourceFormatError
from graphforge.models.benchmark import (
    BenchmarkFileLinkRow,
    BenchmarkFileRow,
    BenchmarkReferenceRow,
    BenchmarkRow,
    BenchmarkSource,
    BenchmarkTaskRow,
)
from graphforge.models.workspace import FileFormat
from graphforge.parsers import ParseLimits
from loaders.workspace import walk_regular_files

_ID_KEYS = ("task_id", "id", "uid")
_PROMPT_KEYS = ("prompt", "instruction", "question", "task")
_REFERENCE_DIRS = ("reference_files", "references", "files")
_TEXT_FORMATS = {".txt": FileFormat.TEXT, ".md": FileFormat.MARKDOWN, ".markdown": FileFormat.MARKDOWN,
                 ".csv": FileFormat.CSV, ".tsv": FileFormat.CSV, ".json": FileFormat.JSON,
                 ".html": FileFormat.HTML, ".htm": FileFormat.HTML}


MAX_RECORD_FILE_BYTES = 256 * 1024 * 1024


def read_benchmark(root: Path, name: str) -> BenchmarkSource:
    """Parse every task record and reference file under ``root``.

    Nothing in the folder stops the read: a record file that cannot be read, a record that is not a
    task (bad JSON, nesting past the recursion limit, no id or prompt, a duplicate id), a link, pipe or
    device, an unlistable folder, a path over the system's limit or a file over the parse size limit is
    listed in ``refused`` as "path: reason" and the rest is loaded. Only a folder that is missing or
    holds no record file at all is an error.
    """
    if not root.is_dir():
        raise SourceFormatError(root, "benchmark folder does not exist")
    found, walk_refused, _ = walk_regular_files(root, max_file_bytes=ParseLimits().max_file_bytes)
    refused = [f"{path}: {reason}" for path, reason in walk_refused if "/" not in path]
    record_rels = sorted(p for p in found if "/" not in p and Path(p).suffix.lower() in {".jsonl", ".json"})
    record_rels += sorted(
        p for p, reason in walk_refused if "/" not in p and Path(p).suffix.lower() in {".jsonl", ".json"}
    )
    if not record_rels:
        raise SourceFormatError(root, "no task records (*.jsonl or *.json) at the top level")
    tasks: dict[str, BenchmarkTaskRow] = {}
    wanted: dict[str, list[str]] = {}
    gold_wanted: dict[str, list[str]] = {}
    readable = set(found)
    for rel in (r for r in record_rels if r in readable):
        path = root / rel
        try:
            for line_no, record in _records(path):
                try:
                    if isinstance(record, SourceFormatError):
                        raise record
                    task = _task(name, record, path, line_no)
                    if task.task_key in tasks:
                        raise SourceFormatError(path, f"record {line_no}: duplicate task id {task.task_id!r}")
                    refs = _reference_list(record, path, line_no)
                    gold_refs = _reference_list(record, path, line_no, "deliverable_files")
                except (SourceFormatError, ValueError, RecursionError) as exc:
                    refused.append(_refusal(rel, exc))
                    continue
                tasks[task.task_key] = task
                wanted[task.task_key] = refs
                gold_wanted[task.task_key] = gold_refs
        except (SourceFormatError, RecursionError, MemoryError) as exc:
            refused.append(_refusal(rel, exc))

    files: dict[str, BenchmarkFileRow] = {}
    links: list[BenchmarkFileLinkRow] = []
    by_path: dict[str, str] = {}
    records = set(record_rels)
    refused += [f"{path}: {reason}" for path, reason in walk_refused if "/" in path]
    for rel in sorted(found):
        if rel in records or any(part.startswith(".") for part in rel.split("/")):
            continue  # task records; editor and VCS droppings are not benchmark content
        try:
            rel.encode("utf-8")
        except UnicodeEncodeError:  # bytes that are not UTF-8: the graph could not store the name
            shown = rel.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            refused.append(f"{shown}: file name is not valid UTF-8; rename the file to load it")
            continue
        try:
            row = parse_reference_file(root / rel)
        except Exception as exc:  # noqa: BLE001 - one file never stops the read; its reason is kept
            refused.append(f"{rel}: cannot be read: {type(exc).__name__}: {_one_line(str(exc))}")
            continue
        files.setdefault(row.sha256, row)
        links.append(BenchmarkFileLinkRow(benchmark=name, sha256=row.sha256, path=rel))
        by_path[rel] = row.sha256

    references, missing = _resolve_all(wanted, tasks, by_path)
    gold, missing_gold = _resolve_all(gold_wanted, tasks, by_path)
    benchmark = BenchmarkRow(name=name, source_dir=str(root.resolve()), task_count=len(tasks),
                             file_count=len(files))
    return BenchmarkSource(benchmark=benchmark, tasks=list(tasks.values()), files=list(files.values()),
                           file_links=links, references=references, missing_references=missing, gold=gold,
                           missing_gold=missing_gold, refused=sorted(refused))


def _refusal(rel: str, exc: BaseException) -> str:
    if isinstance(exc, SourceFormatError):
        return f"{rel}: {_one_line(exc.problem)}"
    if isinstance(exc, RecursionError):
        return f"{rel}: nests too deeply to read"
    return f"{rel}: {type(exc).__name__}: {_one_line(str(exc))}"


def _one_line(text: str, limit: int = 300) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit] + "..."


def _resolve_all(wanted: Mapping[str, list[str]], tasks: Mapping[str, BenchmarkTaskRow],
                 by_path: Mapping[str, str]) -> tuple[list[BenchmarkReferenceRow], list[str]]:
    """(resolved rows, "task_id: path" for paths naming no file on disk)."""
    rows: list[BenchmarkReferenceRow] = []
    missing: list[str] = []
    for key, paths in wanted.items():
        for ref in paths:
            sha = _resolve(ref, by_path)
            if sha is None:
                missing.append(f"{tasks[key].task_id}: {ref}")
            else:
                rows.append(BenchmarkReferenceRow(task_key=key, sha256=sha, path=ref))
    return rows, missing


def _records(path: Path) -> Iterator[tuple[int, Mapping[str, Any] | SourceFormatError]]:
    """(record number, the record or why it is not one); raises only when the file itself is unusable."""
    try:
        if os.lstat(path).st_size > MAX_RECORD_FILE_BYTES:
            raise SourceFormatError(path, f"task records over the {MAX_RECORD_FILE_BYTES}-byte limit")
        with open(path, "rb") as fh:
            text = fh.read(MAX_RECORD_FILE_BYTES + 1).decode("utf-8")
    except OSError as exc:
        raise SourceFormatError(path, f"cannot read task records: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise SourceFormatError(path, f"task records are not UTF-8 (byte {exc.start})") from exc
    if path.suffix.lower() == ".jsonl":
        for line_no, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                try:
                    yield line_no, _object(path, line_no, _loads(path, line, line_no))
                except SourceFormatError as exc:  # one bad line costs only that line
                    yield line_no, exc
        return
    data = _loads(path, text, 1)
    items = data.get("tasks") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise SourceFormatError(path, "a .json task file must hold a list of tasks or {\"tasks\": [...]}")
    for index, item in enumerate(items, start=1):
        try:
            yield index, _object(path, index, item)
        except SourceFormatError as exc:
            yield index, exc


def _loads(path: Path, text: str, line_no: int) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise SourceFormatError(path, f"record {line_no}: invalid JSON ({exc.msg})") from exc
    except RecursionError as exc:
        raise SourceFormatError(path, f"record {line_no}: JSON nested too deeply to read") from exc


def _object(path: Path, line_no: int, value: Any) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise SourceFormatError(path, f"record {line_no}: expected a JSON object, got {type(value).__name__}")
    return value


def _first(record: Mapping[str, Any], keys: tuple[str, ...]) -> Any:
    return next((record[k] for k in keys if record.get(k) not in (None, "")), None)


def _task(benchmark: str, record: Mapping[str, Any], path: Path, line_no: int) -> BenchmarkTaskRow:
    task_id = _first(record, _ID_KEYS)
    prompt = _first(record, _PROMPT_KEYS)
    if task_id is None:
        raise SourceFormatError(path, f"record {line_no}: no task id (one of {', '.join(_ID_KEYS)})")
    if not isinstance(prompt, str) or not prompt.strip():
        raise SourceFormatError(path, f"record {line_no}: no prompt text (one of {', '.join(_PROMPT_KEYS)})")
    occupation = record.get("occupation")
    soc_code = record.get("soc_code") or record.get("onet_soc_code")
    sector = record.get("sector")
    text = record.get("deliverable_text")
    return BenchmarkTaskRow.of(benchmark, str(task_id), prompt, occupation=_opt_str(occupation),
                               soc_code=_opt_str(soc_code), sector=_opt_str(sector),
                               deliverable_text=text.strip() or None if isinstance(text, str) else None,
                               deliverables=_deliverable_names(record, path, line_no))


def _deliverable_names(record: Mapping[str, Any], path: Path, line_no: int) -> list[str]:
    """The record's ``deliverables``: relative file names an agent can write in its working folder."""
    names = _reference_list(record, path, line_no, "deliverables")
    for name in names:
        if name.startswith("/") or "\\" in name or ".." in name.split("/"):
            problem = f"deliverable {name!r} is not a relative file name inside the working folder"
            raise SourceFormatError(path, f"record {line_no}: {problem}")
    return names


def _opt_str(value: Any) -> str | None:
    return str(value).strip() or None if value is not None else None


def _reference_list(
    record: Mapping[str, Any], path: Path, line_no: int, key: str = "reference_files"
) -> list[str]:
    refs = record.get(key) or []
    if isinstance(refs, str):
        refs = [refs]
    if not isinstance(refs, list) or not all(isinstance(r, str) for r in refs):
        raise SourceFormatError(path, f"record {line_no}: {key} must be a list of paths")
    return [r.strip().removeprefix("./") for r in refs if r.strip()]


def _resolve(ref: str, by_path: Mapping[str, str]) -> str | None:
    """A reference as written, or under one of the conventional reference folders, or by bare name."""
    for candidate in (ref, *(f"{d}/{ref}" for d in _REFERENCE_DIRS)):
        if candidate in by_path:
            return by_path[candidate]
    base = ref.rsplit("/", 1)[-1]
    matches = {sha for rel, sha in by_path.items() if rel.rsplit("/", 1)[-1] == base}
    return matches.pop() if len(matches) == 1 else None


def parse_reference_file(path: Path) -> BenchmarkFileRow:
    """sha256 and parsed text of one reference file, via graphforge.parsers when present."""
    try:
        from graphforge.parsers import parse_file  # the shared parsers (PDF, XLSX, DOCX, ...)
    except ImportError:
        return _fallback_parse(path)
    parsed = parse_file(path)
    text = parsed.text
    return BenchmarkFileRow(sha256=parsed.sha256, size=parsed.size, format=parsed.format, valid=parsed.valid,
                            invalid_reason=parsed.invalid_reason, parser=parsed.parser, text=text,
                            chars=len(text))


def _fallback_parse(path: Path) -> BenchmarkFileRow:
    """Plain-text formats only, for checkouts without the shared parsers; other formats are invalid."""
    data = path.read_bytes()
    sha = hashlib.sha256(data).hexdigest()
    fmt = _TEXT_FORMATS.get(path.suffix.lower(), FileFormat.UNKNOWN)
    if fmt is FileFormat.UNKNOWN:
        return BenchmarkFileRow(sha256=sha, size=len(data), format=fmt, valid=False,
                                invalid_reason="no parser for this format", parser=None, text="", chars=0)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    if fmt is FileFormat.HTML:
        from bs4 import BeautifulSoup

        text = BeautifulSoup(text, "html.parser").get_text("\n")
    return BenchmarkFileRow(sha256=sha, size=len(data), format=fmt, valid=True, parser="benchmark-text",
                            text=text, chars=len(text))


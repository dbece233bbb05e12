"""Read an unpacked O*NET database release (tab-delimited text or .xlsx) into an OnetRelease model.

Columns are matched by header name, because releases add and reorder columns; extra columns are
ignored. Each table is read from its ``.txt`` file, else its ``.xlsx`` file, so a folder mixing
both forms works. Every file is read and validated before anything is returned, so a bad release
never leads to a partial load. A pure reader: the graph write is the load_onet stage.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from graphforge.errors import SourceFormatError
from graphforge.models.onet import (
    DwaReference,
    GwaReference,
    IwaReference,
    Occupation,
    OnetRelease,
    TaskDwaLink,
    TaskStatement,
    check_soc_code,
)


@dataclass(frozen=True)
class TableSpec:
    stem: str  # the official file name without extension
    required: tuple[str, ...]
    optional: tuple[str, ...] = ()


OCCUPATION_DATA = TableSpec("Occupation Data", ("O*NET-SOC Code", "Title", "Description"))
TASK_STATEMENTS = TableSpec("Task Statements", ("O*NET-SOC Code", "Task ID", "Task", "Task Type"))
TASKS_TO_DWAS = TableSpec("Tasks to DWAs", ("O*NET-SOC Code", "Task ID", "DWA ID"))
DWA_REFERENCE = TableSpec("DWA Reference", ("Element ID", "IWA ID", "DWA ID", "DWA Title"))
IWA_REFERENCE = TableSpec("IWA Reference", ("Element ID", "IWA ID", "IWA Title"))
CONTENT_MODEL = TableSpec("Content Model Reference", ("Element ID", "Element Name"), ("Description",))
TABLES = (OCCUPATION_DATA, TASK_STATEMENTS, TASKS_TO_DWAS, DWA_REFERENCE, IWA_REFERENCE, CONTENT_MODEL)

_RELEASE_IN_NAME = re.compile(r"(?:db|onet)[_ -]?(\d{2})[_.](\d)", re.IGNORECASE)
_RELEASE_IN_README = re.compile(r"O\*NET\s+(\d{2}\.\d)\s+Database", re.IGNORECASE)


@dataclass(frozen=True)
class Table:
    path: Path
    header: tuple[str, ...]
    rows: list[tuple[int, dict[str, str]]]  # (line or row number, required/optional column -> value)


def read_release(path: Path, release_id: str | None = None) -> OnetRelease:
    """Read and validate one unpacked release folder (text or .xlsx form).

    The release id is ``release_id`` when given, else taken from the folder name
    (``db_29_1_text`` -> ``29.1``) or from ``Read Me.txt``. Whatever the file system does (names too
    long, link loops, unreadable files) is a SourceFormatError naming the path, never a traceback.
    """
    try:
        return _read_release(Path(path), release_id)
    except (OSError, RuntimeError) as exc:
        where = getattr(exc, "filename", None) or path
        problem = getattr(exc, "strerror", None) or str(exc)
        raise SourceFormatError(where, f"cannot read: {problem}") from exc


def _read_release(folder: Path, release_id: str | None) -> OnetRelease:
    if not folder.is_dir():
        raise SourceFormatError(folder, "not a folder; unpack the O*NET release first")
    files = _table_files(folder)
    tables = {spec.stem: _read_table(files[spec.stem], spec) for spec in TABLES}
    source_format = _source_format(files)
    release = release_id or infer_release_id(folder)
    occupations = _occupations(tables[OCCUPATION_DATA.stem])
    tasks = _tasks(tables[TASK_STATEMENTS.stem])
    dwas = _dwas(tables[DWA_REFERENCE.stem])
    iwas = _iwas(tables[IWA_REFERENCE.stem])
    gwas = _gwas(tables[CONTENT_MODEL.stem], {i.element_id for i in iwas} | {d.element_id for d in dwas})
    links = _links(tables[TASKS_TO_DWAS.stem])
    skipped: dict[str, int] = {}

    # Cross-table checks: rows that point at nothing are set aside and counted, not loaded as
    # dangling nodes (real releases are consistent; user-made extracts often are not).
    known_occ = {o.soc_code for o in occupations}
    kept_tasks = tuple(t for t in tasks if t.soc_code in known_occ)
    _count(skipped, "task_statement_unknown_occupation", len(tasks) - len(kept_tasks))
    known_tasks = {t.task_id for t in kept_tasks}
    known_dwas = {d.dwa_id for d in dwas}
    kept_links = tuple(lk for lk in links if lk.task_id in known_tasks and lk.dwa_id in known_dwas)
    _count(skipped, "task_dwa_link_unknown_task_or_dwa", len(links) - len(kept_links))
    known_iwas = {i.iwa_id for i in iwas}
    kept_dwas = tuple(d for d in dwas if d.iwa_id in known_iwas)
    _count(skipped, "dwa_unknown_iwa", len(dwas) - len(kept_dwas))

    return OnetRelease(release_id=release, source_path=str(folder.resolve()), source_format=source_format,
                       content_hash=_content_hash(tables), occupations=occupations, tasks=kept_tasks,
                       task_dwas=kept_links, dwas=kept_dwas, iwas=iwas, gwas=gwas, skipped=skipped)


def infer_release_id(folder: Path) -> str:
    """Release id from the folder name or Read Me.txt, else a SourceFormatError asking for --release."""
    match = _RELEASE_IN_NAME.search(folder.resolve().name)
    if match:
        return f"{match.group(1)}.{match.group(2)}"
    readme = folder / "Read Me.txt"
    if readme.is_file():
        found = _RELEASE_IN_README.search(readme.read_text(encoding="utf-8", errors="replace"))
        if found:
            return found.group(1)
    raise SourceFormatError(folder, "cannot tell the O*NET release from the folder name or Read Me.txt; "
                                    "pass it explicitly (--release 29.1)")


def _table_files(folder: Path) -> dict[str, Path]:
    """Each table's file: ``<stem>.txt`` if present, else ``<stem>.xlsx``; the missing ones named."""
    found: dict[str, Path] = {}
    missing: list[str] = []
    for spec in TABLES:
        for suffix in (".txt", ".xlsx"):
            candidate = folder / f"{spec.stem}{suffix}"
            try:
                if candidate.is_file():
                    found[spec.stem] = candidate
                    break
            except OSError as exc:
                raise SourceFormatError(candidate, f"cannot read: {exc.strerror or exc}") from exc
        else:
            missing.append(f"{spec.stem}.txt (or .xlsx)")
    if missing:
        raise SourceFormatError(folder, f"not a complete O*NET release: missing {', '.join(missing)}")
    return found


def _source_format(files: dict[str, Path]) -> str:
    kinds = {p.suffix.lstrip(".") for p in files.values()}
    return kinds.pop() if len(kinds) == 1 else "mixed"


def _read_table(path: Path, spec: TableSpec) -> Table:
    records = _text_records(path) if path.suffix == ".txt" else _xlsx_records(path)
    try:
        header = tuple(h.strip() for h in next(records)[1])
    except StopIteration:
        raise SourceFormatError(path, "empty file: no header row") from None
    for column in spec.required:
        if column not in header:
            raise SourceFormatError(path, f"missing required column {column!r} "
                                          f"(found: {', '.join(repr(h) for h in header)})")
    wanted = {c: header.index(c) for c in (*spec.required, *spec.optional) if c in header}
    rows: list[tuple[int, dict[str, str]]] = []
    for number, cells in records:
        if not any(c.strip() for c in cells):
            continue
        if len(cells) < len(header) and any(i >= len(cells) for i in wanted.values()):
            raise SourceFormatError(
                path, f"line {number}: {len(cells)} fields where the header has {len(header)}"
            )
        rows.append((number, {c: cells[i].strip() if i < len(cells) else "" for c, i in wanted.items()}))
    return Table(path, header, rows)


def _text_records(path: Path) -> Iterator[tuple[int, list[str]]]:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SourceFormatError(path, f"cannot read: {exc.strerror or exc}") from exc
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        # Releases before 25 were published in Windows-1252.
        text = raw.decode("cp1252", errors="replace")
    yield from tab_records(text)


def tab_records(text: str) -> Iterator[tuple[int, list[str]]]:
    """(line number, fields) of O*NET's tab-delimited text, quoting honoured as the files use it.

    A field that holds a quote is written whole in quotes with its quotes doubled
    (``"Conduct ""head counts"" of ..."``); every other field is bare, and a quote inside a bare
    field (``12" pipe``) is text. A field counts as quoted only when its closing quote ends the
    field; such a field may hold tabs and line breaks. Records end at "\n" only: str.splitlines()
    would also break at U+2028, U+0085 and form feeds, which real statements contain.
    """
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        number, line = i + 1, lines[i].removesuffix("\r")
        i += 1
        if '"' not in line:
            yield number, line.split("\t")
            continue
        fields: list[str] = []
        pos = 0
        while True:
            if line.startswith('"', pos):
                value, end, used = _quoted(lines, i, line, pos)
                if value is not None:
                    fields.append(value)
                    i += used
                    line = lines[i - 1].removesuffix("\r") if used else line
                    pos = end
                    if pos >= len(line):
                        break
                    pos += 1  # the tab after the closing quote
                    continue
            tab = line.find("\t", pos)
            if tab == -1:
                fields.append(line[pos:])
                break
            fields.append(line[pos:tab])
            pos = tab + 1
        yield number, fields


def _quoted(lines: list[str], next_index: int, line: str, start: int) -> tuple[str | None, int, int]:
    """(value, index after the closing quote in its line, extra lines used) of a quoted field at
    ``start``, or (None, 0, 0) when the field is bare text that happens to start with a quote."""
    parts: list[str] = []
    current, pos, used = line, start + 1, 0
    while True:
        close = current.find('"', pos)
        if close == -1:
            if next_index + used >= len(lines) or used >= 20:  # no closing quote: bare text after all
                return None, 0, 0
            parts.append(current[pos:] + "\n")
            current, pos = lines[next_index + used].removesuffix("\r"), 0
            used += 1
            continue
        if current.startswith('""', close):
            parts.append(current[pos:close] + '"')
            pos = close + 2
            continue
        if close + 1 == len(current) or current[close + 1] == "\t":
            parts.append(current[pos:close])
            return "".join(parts), close + 1, used
        return None, 0, 0


def _xlsx_records(path: Path) -> Iterator[tuple[int, list[str]]]:
    from openpyxl import load_workbook

    try:
        book = load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many unrelated types for a damaged file
        raise SourceFormatError(path, f"cannot open as .xlsx: {exc}") from exc
    try:
        sheet = book.worksheets[0]
        rows = enumerate(sheet.iter_rows(values_only=True), start=1)
        while True:
            try:
                number, values = next(rows)
            except StopIteration:
                return
            except Exception as exc:  # a damaged sheet fails while its rows are read
                raise SourceFormatError(path, f"cannot read the sheet: {exc}") from exc
            yield number, ["" if v is None else _cell_text(v) for v in values]
    finally:
        book.close()


def _cell_text(value: object) -> str:
    # Task IDs arrive as numbers from .xlsx; 8823.0 must become "8823" to match the text form.
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _row_error(table: Table, number: int, exc: ValidationError | ValueError) -> SourceFormatError:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        return SourceFormatError(table.path, f"line {number}: {field}: {first['msg']}")
    return SourceFormatError(table.path, f"line {number}: {exc}")


def _soc(table: Table, number: int, value: str) -> str:
    try:
        return check_soc_code(value)
    except ValueError as exc:
        raise SourceFormatError(table.path, f"line {number}: column 'O*NET-SOC Code': {exc}") from exc


def _occupations(table: Table) -> tuple[Occupation, ...]:
    out: dict[str, Occupation] = {}
    for number, row in table.rows:
        code = _soc(table, number, row["O*NET-SOC Code"])
        try:
            out[code] = Occupation(soc_code=code, title=row["Title"], description=row["Description"])
        except ValidationError as exc:
            raise _row_error(table, number, exc) from exc
    return tuple(out.values())


def _tasks(table: Table) -> tuple[TaskStatement, ...]:
    out: dict[str, TaskStatement] = {}
    for number, row in table.rows:
        code = _soc(table, number, row["O*NET-SOC Code"])
        task_type = row["Task Type"]
        try:
            out[row["Task ID"]] = TaskStatement(
                soc_code=code,
                task_id=row["Task ID"],
                statement=row["Task"],
                task_type="" if task_type.lower() in {"n/a", "na"} else task_type,
            )
        except ValidationError as exc:
            raise _row_error(table, number, exc) from exc
    return tuple(out.values())


def _links(table: Table) -> tuple[TaskDwaLink, ...]:
    out: dict[tuple[str, str], TaskDwaLink] = {}
    for number, row in table.rows:
        code = _soc(table, number, row["O*NET-SOC Code"])
        if not row["Task ID"] or not row["DWA ID"]:
            raise SourceFormatError(table.path, f"line {number}: empty 'Task ID' or 'DWA ID'")
        out[(row["Task ID"], row["DWA ID"])] = TaskDwaLink(soc_code=code, task_id=row["Task ID"],
                                                           dwa_id=row["DWA ID"])
    return tuple(out.values())


def _dwas(table: Table) -> tuple[DwaReference, ...]:
    out: dict[str, DwaReference] = {}
    for number, row in table.rows:
        if not row["DWA ID"] or not row["IWA ID"]:
            raise SourceFormatError(table.path, f"line {number}: empty 'DWA ID' or 'IWA ID'")
        out[row["DWA ID"]] = DwaReference(element_id=row["Element ID"], iwa_id=row["IWA ID"],
                                          dwa_id=row["DWA ID"], title=row["DWA Title"])
    return tuple(out.values())


def _iwas(table: Table) -> tuple[IwaReference, ...]:
    out: dict[str, IwaReference] = {}
    for number, row in table.rows:
        if not row["IWA ID"]:
            raise SourceFormatError(table.path, f"line {number}: empty 'IWA ID'")
        out[row["IWA ID"]] = IwaReference(element_id=row["Element ID"], iwa_id=row["IWA ID"],
                                          title=row["IWA Title"])
    return tuple(out.values())


def _gwas(table: Table, referenced: set[str]) -> tuple[GwaReference, ...]:
    # The Content Model holds every element (abilities, skills, ...); only the generalized work
    # activities that IWAs and DWAs roll up to belong in the work-activity hierarchy.
    found = {row["Element ID"]: GwaReference(element_id=row["Element ID"], name=row["Element Name"],
                                             description=row.get("Description", ""))
             for _, row in table.rows if row["Element ID"] in referenced}
    missing = sorted(referenced - set(found))
    if missing:
        raise SourceFormatError(table.path, f"no element for work activity ids referenced by IWA/DWA "
                                            f"Reference: {', '.join(missing[:5])}")
    return tuple(found[k] for k in sorted(found))


def _content_hash(tables: dict[str, Table]) -> str:
    digest = hashlib.sha256()
    for stem in sorted(tables):
        digest.update(stem.encode())
        for _, row in tables[stem].rows:
            digest.update("\x1f".join(f"{k}={v}" for k, v in sorted(row.items())).encode("utf-8"))
    return digest.hexdigest()[:16]


def _count(skipped: dict[str, int], reason: str, n: int) -> None:
    if n:
        skipped[reason] = n


def required_columns() -> dict[str, Sequence[str]]:
    """The files a release must contain and the columns read from each (for docs and errors)."""
    return {spec.stem: spec.required for spec in TABLES}

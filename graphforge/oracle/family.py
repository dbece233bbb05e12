"""The graph oracle for task-family specs: writes each deliverable from the anchored facts, in its format.

Items are written as the source states them (a date also as YYYY-MM-DD), each with the file it comes from on
its own line, row or record; the layout the deliverable declares is written exactly: its sections, sheets and
slides, its table's columns (in the declared order) and its JSON records' keys. Injections (see
agent.InjectKind) turn a correct deliverable into a known-wrong one so tests can show the judge catches it.
"""

from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from graphforge.figures.dates import parse_date
from graphforge.judge.view import Anchor, JudgeView
from graphforge.models.spec import CriterionSpec, DeliverableSpec
from graphforge.oracle.writers import INJECTION_LINE

_LEAD = ("Summary", "Sources", "Gaps", "Open items")


@dataclass
class Row:
    label: str
    value: str
    source: str
    earlier: str = ""  # a superseded value, written as earlier (change memos)
    earlier_source: str = ""
    kind: str | None = None  # the item's fact kind
    file: str = ""  # the name of the file it comes from, as cited
    also_file: str = ""  # the other file a two-file citation names beside the item (what an entry replaces)


@dataclass
class FamilyPlan:
    wrong_item: str | None = None  # criterion id whose value is written wrong
    stale_item: str | None = None  # criterion id whose superseded value is written as current
    fake_sources: bool = False
    skip_part: str | None = None
    injection_line: bool = False
    invented_entry: str | None = None  # an entry no source states, added to the list the spec asks for


# What the confuser injection adds to a list whose entries must come from the sources.
INVENTED_ENTRY = "Every contractor employee shall complete quarterly ethics training before badge renewal."


def _file(a: Anchor, fake: bool, paths: list[str]) -> str:
    """How a row names its file: the base name, or the path where another folder holds the same name."""
    name = PurePosixPath(a.path or "unknown").name
    if sum(PurePosixPath(p).name == name for p in paths) > 1:
        name = a.path or name
    if fake:
        stem, dot, ext = name.rpartition(".")
        name = f"{stem}_final_v2.{ext}" if dot else f"{name}_final_v2"
    return name


def _source(a: Anchor, fake: bool, paths: list[str]) -> str:
    name, where = _file(a, fake, paths), a.locator
    return f"{name} ({where})" if where else name


def _wrong(value: str, kind: str | None) -> str:
    if kind == "date":
        iso = parse_date(value)
        if iso and len(iso) == 10:
            year, month, day = iso.split("-")
            return f"{year}-{month}-{int(day) % 28 + 1:02d}"
    if kind == "quantity":
        from graphforge.figures.numbers import parse_number

        number = parse_number(value)
        if number is not None:
            return f"{number * 1.1 + 7:,.2f}"
    return "not stated in the documents"


def rows_for(view: JudgeView, d: DeliverableSpec, plan: FamilyPlan) -> list[Row]:
    stale_of: dict[str, Anchor] = {}
    also: dict[str, Anchor] = {}  # an item's fact -> the second file's fact that states it too
    for c in view.spec.criteria:
        anchors = view.anchors_of(c)
        if c.check == "stale" and len(anchors) > 1:
            stale_of[anchors[1].fact_id] = anchors[0]
        if c.check == "cites" and len(anchors) == 2 and anchors[0].path != anchors[1].path:
            also[anchors[0].fact_id] = anchors[1]
    rows: list[Row] = []
    for c in view.spec.criteria:
        if c.check != "item" or c.target_deliverable != d.name:
            continue
        anchors = view.anchors_of(c)
        if not anchors:
            continue
        a = anchors[0]
        value = a.value
        if c.fact_kind == "date" and (iso := parse_date(a.value)):
            value = f"{iso} ({a.value})" if iso != a.value else iso
        old = stale_of.get(a.fact_id)
        earlier = old.value if old is not None else ""
        earlier_source = _source(old, plan.fake_sources, view.paths) if old is not None else ""
        if plan.wrong_item == c.criterion_id:
            value = _wrong(a.value, c.fact_kind)
        if plan.stale_item == c.criterion_id and old is not None:
            value, earlier = old.value, ""
        source = _source(a, plan.fake_sources, view.paths)
        if a.fact_id in also:
            source += f"; also stated in {_source(also[a.fact_id], plan.fake_sources, view.paths)}"
        rows.append(Row(_label(c), value, source, earlier, earlier_source, c.fact_kind,
                        _file(a, plan.fake_sources, view.paths),
                        _file(also[a.fact_id], plan.fake_sources, view.paths) if a.fact_id in also else ""))
    if plan.invented_entry and any(c.check == "invented" and c.target_deliverable == d.name
                                   for c in view.spec.criteria):
        rows.append(Row("Additional requirement", plan.invented_entry, "internal guidance"))
    return rows


def _one_line(text: str) -> str:
    return " ".join(part.strip() for part in text.splitlines() if part.strip())


def _label(c: CriterionSpec) -> str:
    return (c.label or c.requirement).strip()


_SOURCE_COLUMN = re.compile(r"\b(?:sources?|files?|file ?names?|references?|citations?|cited|paths?)\b")
_REPLACES = re.compile(r"\b(?:replaces|supersedes|earlier version)\b")  # a records entry's earlier version
_FILE_KEY = re.compile(r"^(?:files?|file ?names?|paths?)$")
_LABEL_COLUMNS = frozenset({"item", "event", "term", "section", "name", "figure", "measure", "topic",
                            "subject", "change", "milestone"})
_VALUE_COLUMNS = frozenset({"value", "requirement", "definition", "title", "amount", "wording", "text",
                            "current value", "content", "description", "deadline"})


def _key(name: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", name.lower()))


def _cell(column: str, r: Row) -> str:
    """What a row puts under a declared column: its source, status, date, label or value (else nothing)."""
    key = _key(column)
    if _SOURCE_COLUMN.search(key):
        return r.source
    if key == "status":
        return r.value if r.kind == "status" else "to confirm"
    if "date" in key:
        return r.value if r.kind == "date" else ""
    if key in _LABEL_COLUMNS:
        return f"{r.label} (earlier: {r.earlier})" if r.earlier else r.label
    if key in _VALUE_COLUMNS:
        return r.value
    return ""


def _table(columns: list[str], rows: list[Row]) -> list[list[str]]:
    """The rows under the declared columns; the value goes to the first free column when none asks for it."""
    out = []
    for r in rows:
        cells = [_cell(c, r) for c in columns]
        if r.value not in cells:
            free = [i for i, c in enumerate(columns) if not cells[i] and not _SOURCE_COLUMN.search(_key(c))]
            if free:
                cells[free[0]] = r.value
        out.append(cells)
    return out


def _records(keys: list[str], rows: list[Row]) -> list[dict[str, str | None]]:
    """JSON records with the declared keys: one per item, or one per file when the record is a file's entry
    (a ``file`` key and no source key)."""
    if not any(_FILE_KEY.match(_key(k)) for k in keys) or any(
            _SOURCE_COLUMN.search(_key(k)) and not _FILE_KEY.match(_key(k)) for k in keys):
        return [dict(zip(keys, cells, strict=True)) for cells in _table(keys, rows)]
    by_file: dict[str, list[Row]] = {}
    for r in rows:
        by_file.setdefault(r.file, []).append(r)
    out: list[dict[str, str | None]] = []
    for name, group in by_file.items():
        dates = [r.value for r in group if r.kind == "date"]
        others = [r.value for r in group if r.kind != "date"]
        replaced = next((r.also_file for r in group if r.also_file), None)
        out.append({k: name if _FILE_KEY.match(_key(k)) else replaced if _REPLACES.search(_key(k)) else
                    (dates[0] if dates else "") if "date" in _key(k) else (others[0] if others else "")
                    for k in keys})
    return out


def write(path: Path, view: JudgeView, d: DeliverableSpec, plan: FamilyPlan) -> None:
    """Write one deliverable of a family spec in the format it asks for, in the layout it declares."""
    rows = rows_for(view, d, plan)
    columns = [c for c in d.required_columns if c != plan.skip_part]
    keys = [k for k in d.required_keys if k != plan.skip_part]
    declared = {*d.required_columns, *d.required_keys}
    parts = [
        p
        for p in (
            c.expected for c in view.spec.criteria if c.check == "layout" and c.target_deliverable == d.name
        )
        if p and p not in declared
    ]
    parts = [
        p for p in dict.fromkeys([*d.required_sections, *d.required_sheets, *parts]) if p != plan.skip_part
    ]
    # A superseded file is no source of what the deliverable reports: it is named only as the earlier version.
    sources = sorted({r.source for r in rows})
    fmt = d.format.lower()
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "csv":
        header = columns or (parts[:3] if len(parts) >= 3 else ["Item", "Value", "Source"])
        with path.open("w", newline="", encoding="utf-8") as handle:
            w = csv.writer(handle)
            w.writerow(header)
            if columns:
                w.writerows(_table(columns, rows))
            for r in rows if not columns else []:
                note = f"{r.label} (earlier: {r.earlier})" if r.earlier else r.label
                w.writerow(
                    [r.value, note, r.source] if header[0].lower() == "date" else [note, r.value, r.source]
                )
            if plan.injection_line:
                w.writerow([INJECTION_LINE, "", ""])
        return
    if fmt == "xlsx":
        from openpyxl import Workbook

        book = Workbook()
        sheet = book.worksheets[0]
        sheet.title = (parts[0] if parts else "Items")[:31]
        header = columns or ["Item", "Value", "Source", "Status"]
        sheet.append(header)
        for cells in _table(header, rows):
            sheet.append(cells)
        if plan.injection_line:
            sheet.append([INJECTION_LINE])
        book.save(path)
        return
    body = [p for p in parts if p not in _LEAD] or parts[:1] or ["Items"]
    sections: list[tuple[str, list[str]]] = []
    for part in parts or ["Items"]:
        lines: list[str] = []
        if part == "Summary":
            lines.append(f"This covers {len(rows)} items from {len(sources)} files.")
        elif part == "Sources":
            lines += sources
        elif part == body[0]:
            for r in rows:
                # One item, one line: a value the source wraps over lines keeps its words, and its citation
                # stays on the item's line.
                lines.append(f"{_one_line(r.label)}: {_one_line(r.value)} (source: {r.source})")
                if r.earlier:
                    # Named like the item, so the earlier value's own citation is read as its record.
                    lines.append(f"{_one_line(r.label)}, earlier version: {_one_line(r.earlier)} "
                                 f"(earlier version: {r.earlier_source})")
        else:
            lines.append("None found beyond the items above.")
        sections.append((part, lines))
    if plan.injection_line:
        sections[0][1].append(INJECTION_LINE)
    if fmt == "md":
        text = "\n".join(f"## {h}\n\n" + "\n".join(f"- {ln}" for ln in lines) + "\n" for h, lines in sections)
        path.write_text(text, encoding="utf-8")
    elif fmt == "docx":
        from docx import Document

        doc = Document()
        for heading, lines in sections:
            doc.add_heading(heading, level=1)
            for line in lines:
                doc.add_paragraph(line)
        doc.save(str(path))
    elif fmt == "pptx":
        from pptx import Presentation
        from pptx.util import Inches

        deck = Presentation()
        for heading, lines in sections:
            slide = deck.slides.add_slide(deck.slide_layouts[5])  # title only
            slide.shapes.title.text = heading
            box = slide.shapes.add_textbox(Inches(0.5), Inches(1.5), Inches(9), Inches(5))
            box.text_frame.text = lines[0] if lines else ""
            for line in lines[1:]:
                box.text_frame.add_paragraph().text = line
        deck.save(str(path))
    elif fmt == "json":
        key = parts[0] if parts else "items"
        data: dict[str, object] = {key: _records(keys or ["item", "value", "source"], rows)}
        if plan.injection_line:
            data["note"] = INJECTION_LINE
        path.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
    else:
        path.write_text("\n".join(f"{_one_line(r.label)}: {_one_line(r.value)} ({r.source})" for r in rows),
                        encoding="utf-8")

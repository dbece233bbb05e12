"""The graph oracle for task-family specs: writes each deliverable from the anchored facts, in its format.

Items are written as the source states them (a date also as YYYY-MM-DD), each with the file it comes from;
the parts the spec names (sections, sheets, slides, columns, JSON keys) are created. Injections (see
agent.InjectKind) turn a correct deliverable into a known-wrong one so tests can show the judge catches it.
"""

from __future__ import annotations

import csv
import json
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


def _source(a: Anchor, fake: bool) -> str:
    name = PurePosixPath(a.path or "unknown").name
    if fake:
        stem, dot, ext = name.rpartition(".")
        name = f"{stem}_final_v2.{ext}" if dot else f"{name}_final_v2"
    where = a.locator
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
        earlier_source = _source(old, plan.fake_sources) if old is not None else ""
        if plan.wrong_item == c.criterion_id:
            value = _wrong(a.value, c.fact_kind)
        if plan.stale_item == c.criterion_id and old is not None:
            value, earlier = old.value, ""
        source = _source(a, plan.fake_sources)
        if a.fact_id in also:
            source += f"; also stated in {_source(also[a.fact_id], plan.fake_sources)}"
        rows.append(Row(_label(c), value, source, earlier, earlier_source))
    if plan.invented_entry and any(c.check == "invented" and c.target_deliverable == d.name
                                   for c in view.spec.criteria):
        rows.append(Row("Additional requirement", plan.invented_entry, "internal guidance"))
    return rows


def _label(c: CriterionSpec) -> str:
    return (c.label or c.requirement).strip()


def write(path: Path, view: JudgeView, d: DeliverableSpec, plan: FamilyPlan) -> None:
    """Write one deliverable of a family spec in the format it asks for."""
    rows = rows_for(view, d, plan)
    parts = [
        p
        for p in (
            c.expected for c in view.spec.criteria if c.check == "layout" and c.target_deliverable == d.name
        )
        if p
    ]
    parts = [
        p for p in dict.fromkeys([*d.required_sections, *d.required_sheets, *parts]) if p != plan.skip_part
    ]
    sources = sorted({r.source for r in rows} | {r.earlier_source for r in rows if r.earlier_source})
    fmt = d.format.lower()
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "csv":
        header = parts[:3] if len(parts) >= 3 else ["Item", "Value", "Source"]
        with path.open("w", newline="", encoding="utf-8") as handle:
            w = csv.writer(handle)
            w.writerow(header)
            for r in rows:
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
        sheet = book.active
        sheet.title = (parts[0] if parts else "Items")[:31]
        sheet.append(["Item", "Value", "Source", "Status"])
        for r in rows:
            sheet.append([r.label, r.value, r.source, "to confirm"])
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
                lines.append(f"{r.label}: {r.value} (source: {r.source})")
                if r.earlier:
                    lines.append(f"Earlier version stated: {r.earlier} (source: {r.earlier_source})")
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
        data: dict[str, object] = {
            key: [{"item": r.label, "value": r.value, "source": r.source} for r in rows]
        }
        if plan.injection_line:
            data["note"] = INJECTION_LINE
        path.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
    else:
        path.write_text("\n".join(f"{r.label}: {r.value} ({r.source})" for r in rows), encoding="utf-8")

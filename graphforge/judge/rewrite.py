"""Edit a deliverable's text wherever its format keeps it, in every format the judge reads.

``rewrite`` copies a file applying an edit to each of its text units: a line of Markdown or plain text, a CSV
cell, a JSON key or string, a Word paragraph or table cell, a slide's paragraph, title or table cell, a
worksheet's string cell or title. An edit returns the new text, or None to delete the unit where the
format allows it (a line, a paragraph). ``append`` adds a line of text where a reader of the format sees it: a
new row of the first sheet or of the CSV, a paragraph at the end of the document or of the last slide, a
Markdown line, a JSON key. ``drop_part`` removes a section, slide, sheet or top-level JSON key by its name.
The perturbations of the judge-sensitivity study are built on these.
"""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from graphforge.judge.documents import HEADING_RE, heading_level, norm_key, normalise_format

Edit = Callable[[str], str | None]
FORMATS = ("md", "txt", "csv", "json", "docx", "pptx", "xlsx")


def supported(path: Path) -> bool:
    return normalise_format(path.suffix) in FORMATS


def rewrite(source: Path, out: Path, edit: Edit) -> int:
    """Copy ``source`` to ``out`` with ``edit`` applied to every text unit; the number of units changed."""
    fmt = normalise_format(source.suffix)
    out.parent.mkdir(parents=True, exist_ok=True)
    return _REWRITERS[fmt](source, out, edit)


def _changed(edit: Edit, text: str) -> tuple[bool, str | None]:
    new = edit(text)
    return new != text, new


def _rewrite_text(source: Path, out: Path, edit: Edit) -> int:
    n, kept = 0, []
    for line in source.read_text(encoding="utf-8").splitlines():
        m = HEADING_RE.match(line)
        body = m.group(2).strip() if m else line
        changed, new = _changed(edit, body)
        n += changed
        if new is not None:
            kept.append(f"{m.group(1)} {new}" if m and changed else new if changed else line)
    out.write_text("\n".join(kept) + "\n", encoding="utf-8")
    return n


def _rewrite_csv(source: Path, out: Path, edit: Edit) -> int:
    n, rows = 0, []
    for row in csv.reader(io.StringIO(source.read_text(encoding="utf-8"))):
        cells = []
        for cell in row:
            changed, new = _changed(edit, cell)
            n += changed
            cells.append(new or "")
        rows.append(cells)
    with out.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)
    return n


def _rewrite_json(source: Path, out: Path, edit: Edit) -> int:
    count = [0]

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            result = {}
            for k, v in value.items():
                changed, new = _changed(edit, str(k))
                count[0] += changed
                if new is not None:
                    result[new] = walk(v)
            return result
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, str):
            changed, new = _changed(edit, value)
            count[0] += changed
            return new or ""
        return value

    data = walk(json.loads(source.read_text(encoding="utf-8")))
    out.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
    return count[0]


def _rewrite_docx(source: Path, out: Path, edit: Edit) -> int:
    import docx

    shutil.copyfile(source, out)
    document = docx.Document(str(out))
    n = 0
    cells = [cell for t in document.tables for row in t.rows for cell in row.cells]
    paragraphs = list(document.paragraphs) + [p for cell in cells for p in cell.paragraphs]
    for paragraph in paragraphs:
        if not paragraph.text.strip():
            continue
        changed, new = _changed(edit, paragraph.text)
        if not changed:
            continue
        n += 1
        if new is None:
            paragraph._element.getparent().remove(paragraph._element)  # python-docx has no delete
        else:
            paragraph.text = new
    document.save(str(out))
    return n


def _rewrite_pptx(source: Path, out: Path, edit: Edit) -> int:
    from pptx import Presentation

    deck = Presentation(str(source))
    n = 0
    for slide in deck.slides:
        for shape in slide.shapes:
            if shape.has_text_frame:
                for para in shape.text_frame.paragraphs:
                    text = "".join(r.text for r in para.runs)
                    if not text.strip():
                        continue
                    changed, new = _changed(edit, text)
                    if changed:
                        n += 1
                        for i, run in enumerate(para.runs):
                            run.text = (new or "") if i == 0 else ""
            if getattr(shape, "has_table", False) and shape.has_table:
                for row in shape.table.rows:
                    for cell in row.cells:
                        changed, new = _changed(edit, cell.text)
                        if changed:
                            n += 1
                            cell.text = new or ""
    deck.save(str(out))
    return n


def _rewrite_xlsx(source: Path, out: Path, edit: Edit) -> int:
    import openpyxl

    book = openpyxl.load_workbook(source)
    n = 0
    for sheet in book.worksheets:
        changed, new = _changed(edit, sheet.title)
        if changed and new:
            n += 1
            sheet.title = new[:31]
        for row in sheet.iter_rows():
            for cell in row:
                if isinstance(cell.value, str) and not cell.value.startswith("="):
                    changed, new = _changed(edit, cell.value)
                    if changed:
                        n += 1
                        cell.value = new or None
    book.save(out)
    return n


_REWRITERS: dict[str, Callable[[Path, Path, Edit], int]] = {
    "md": _rewrite_text, "txt": _rewrite_text, "csv": _rewrite_csv, "json": _rewrite_json,
    "docx": _rewrite_docx, "pptx": _rewrite_pptx, "xlsx": _rewrite_xlsx}


def append(source: Path, out: Path, text: str) -> str:
    """Copy ``source`` to ``out`` with one more line of ``text``; says where it went."""
    fmt = normalise_format(source.suffix)
    out.parent.mkdir(parents=True, exist_ok=True)
    if fmt in ("md", "txt"):
        body = source.read_text(encoding="utf-8").rstrip("\n")
        out.write_text(f"{body}\n\n{text}\n", encoding="utf-8")
        return "a line of the document body"
    if fmt == "csv":
        rows = list(csv.reader(io.StringIO(source.read_text(encoding="utf-8"))))
        width = max((len(r) for r in rows), default=1)
        with out.open("w", newline="", encoding="utf-8") as handle:
            csv.writer(handle).writerows([*rows, [text] + [""] * (width - 1)])
        return "a cell of a new row"
    if fmt == "json":
        data = json.loads(source.read_text(encoding="utf-8"))
        data = {**data, "remarks": text} if isinstance(data, dict) else [*data, text]
        out.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
        return "a JSON field"
    if fmt == "docx":
        import docx

        document = docx.Document(str(source))
        document.add_paragraph(text)
        document.save(str(out))
        return "a paragraph of the document body"
    if fmt == "pptx":
        from pptx import Presentation
        from pptx.util import Inches

        deck = Presentation(str(source))
        slide = deck.slides[len(deck.slides) - 1]
        slide.shapes.add_textbox(Inches(0.5), Inches(6.5), Inches(9), Inches(0.8)).text_frame.text = text
        deck.save(str(out))
        return "a text box of the last slide"
    if fmt == "xlsx":
        import openpyxl

        book = openpyxl.load_workbook(source)
        book.worksheets[0].append([text])
        book.save(out)
        return "a cell of a new row"
    raise ValueError(f"{source}: cannot add text to a {fmt} file")


def drop_part(source: Path, out: Path, part: str) -> bool:
    """Copy ``source`` to ``out`` without the section, slide, sheet or top-level JSON key named ``part``
    (names compared as the judge compares them); False when the file has no such part to drop."""
    fmt = normalise_format(source.suffix)
    want = norm_key(part)
    out.parent.mkdir(parents=True, exist_ok=True)
    if fmt in ("md", "txt"):
        kept, skip_level, dropped = [], 0, False
        for line in source.read_text(encoding="utf-8").splitlines():
            m = HEADING_RE.match(line)
            if m and skip_level and len(m.group(1)) <= skip_level:
                skip_level = 0
            if m and not skip_level and norm_key(m.group(2)) == want:
                skip_level, dropped = len(m.group(1)), True
            if not skip_level:
                kept.append(line)
        out.write_text("\n".join(kept) + "\n", encoding="utf-8")
        return dropped
    if fmt == "json":
        data = json.loads(source.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            return False
        kept_data = {k: v for k, v in data.items() if norm_key(str(k)) != want}
        out.write_text(json.dumps(kept_data, indent=2, ensure_ascii=False), encoding="utf-8")
        return len(kept_data) < len(data)
    if fmt == "docx":
        import docx

        document = docx.Document(str(source))
        level = 0
        dropped = False
        for paragraph in list(document.paragraphs):
            style = (paragraph.style.name if paragraph.style is not None else "") or ""
            this = heading_level(style)
            if this and level and this <= level:
                level = 0
            if this and not level and norm_key(paragraph.text) == want:
                level, dropped = this, True
            if level:
                paragraph._element.getparent().remove(paragraph._element)
        document.save(str(out))
        return dropped
    if fmt == "pptx":
        from pptx import Presentation

        deck = Presentation(str(source))
        slide_ids = deck.slides._sldIdLst  # python-pptx has no public call to delete a slide
        for slide, sld_id in zip(list(deck.slides), list(slide_ids), strict=True):
            title = slide.shapes.title
            if title is not None and title.has_text_frame and norm_key(title.text_frame.text) == want:
                deck.part.drop_rel(sld_id.rId)
                slide_ids.remove(sld_id)
                deck.save(str(out))
                return True
        return False
    if fmt == "xlsx":
        import openpyxl

        book = openpyxl.load_workbook(source)
        sheet = next((s for s in book.worksheets if norm_key(s.title) == want), None)
        if sheet is None:
            return False
        if len(book.worksheets) == 1:  # a workbook keeps one sheet: an empty one takes its place
            book.create_sheet("Sheet1" if sheet.title != "Sheet1" else "Sheet2")
        book.remove(sheet)
        book.save(out)
        return True
    return False


def replace_words(text: str, old: str, new: str) -> str:
    """``text`` with each occurrence of ``old`` that stands on its own (not inside a longer name or number)
    replaced by ``new``."""
    if not old:
        return text
    return re.sub(rf"(?<![\w.]){re.escape(old)}(?![\w])", lambda _: new, text)

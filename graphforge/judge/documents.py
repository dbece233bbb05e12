"""Read deliverables as the judge sees them: workbooks (formulas and cached values) and reports (sections)."""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from graphforge.errors import SourceFormatError
from graphforge.judge.formula import CellData, Evaluator

FORMATS = {"xlsx": "xlsx", "xlsm": "xlsx", "docx": "docx", "md": "md", "markdown": "md", "csv": "csv",
           "txt": "md", "text": "md", "pptx": "pptx", "json": "json"}


@dataclass
class Workbook:
    """Cells of every sheet, in sheet order; evaluate formulas through ``evaluator``."""

    path: Path
    sheets: dict[str, dict[str, CellData]]
    order: list[str]
    comments: dict[str, dict[str, str]] = field(default_factory=dict)  # sheet -> cell -> its comment's text

    @property
    def evaluator(self) -> Evaluator:
        return Evaluator(self.sheets)

    def sheet_text(self, sheet: str, cells: tuple[str, ...] = ()) -> str:
        """Text of a sheet (or of some cells), one line per row, cells separated by tabs."""
        name = self.evaluator.sheet_name(sheet)
        if name is None:
            return ""
        data = self.sheets[name]
        keys = [c for c in cells if c in data] if cells else list(data)
        rows: dict[int, list[str]] = {}
        for key in keys:
            cell = data[key]
            text = cell.formula if cell.formula and cell.value is None else cell.value
            if text is not None:
                rows.setdefault(_row_of(key), []).append(str(text))
        return "\n".join("\t".join(parts) for _, parts in sorted(rows.items()))

    def text(self) -> str:
        return "\n".join(f"# {s}\n{self.sheet_text(s)}" for s in self.order)


@dataclass
class Section:
    heading: str
    level: int
    text: str
    notes: str = ""  # a slide's speaker notes
    keys: tuple[str, ...] = ()  # JSON: the keys of the objects under this top-level key, at any depth


@dataclass
class Report:
    """A DOCX or Markdown report: its sections by heading, and the full text."""

    path: Path
    sections: list[Section] = field(default_factory=list)

    def section(self, heading: str) -> Section | None:
        """The section headed ``heading`` (ignoring case and punctuation), else one whose heading opens or
        closes with it ("Open items (3)", "Summary of discrepancies"). A name inside a heading is not the
        heading's name: a one-line file set as a heading that mentions every requested part ("## Required
        items: ... which are Gaps or Sources ...") passed as all of them (closed loop, run 17b)."""
        want = norm_key(heading)
        exact = [s for s in self.sections if norm_key(s.heading) == want]
        if exact:
            return exact[0]
        named = [(s, re.sub(r"^(?:\d+ )+", "", norm_key(s.heading))) for s in self.sections]  # "2.1 ..."
        loose = [s for s, key in named
                 if want and (key == want or key.startswith(want + " ") or key.endswith(" " + want))]
        return loose[0] if loose else None

    def text(self) -> str:
        return "\n".join(f"{s.heading}\n{s.text}" if s.heading else s.text for s in self.sections)


Document = Workbook | Report


def norm_key(text: str) -> str:
    """Lower-case words and digits joined by single spaces: how names and labels are compared."""
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def _row_of(ref: str) -> int:
    return int(re.sub(r"[^0-9]", "", ref) or 0)


def normalise_format(fmt: str) -> str:
    return FORMATS.get(fmt.lower().lstrip("."), fmt.lower())


def read_document(path: Path, fmt: str) -> Document:
    """Open a deliverable as the format its spec requires; raise SourceFormatError if it is not readable."""
    kind = normalise_format(fmt)
    if kind == "xlsx":
        return read_workbook(path)
    if kind == "docx":
        return read_docx(path)
    if kind == "md":
        return read_markdown(path)
    if kind == "csv":
        return read_csv(path)
    if kind == "pptx":
        return read_pptx(path)
    if kind == "json":
        return read_json(path)
    raise SourceFormatError(path, f"the judge cannot read deliverables of format {fmt!r}")


def read_workbook(path: Path) -> Workbook:
    import openpyxl

    try:
        formulas = openpyxl.load_workbook(path, data_only=False)
        cached = openpyxl.load_workbook(path, data_only=True)
    except (OSError, zipfile.BadZipFile, KeyError, ValueError, TypeError) as exc:
        raise SourceFormatError(path, f"not a readable XLSX workbook: {exc}") from exc
    sheets: dict[str, dict[str, CellData]] = {}
    comments: dict[str, dict[str, str]] = {}
    for ws in formulas.worksheets:
        cws = cached[ws.title]
        cells: dict[str, CellData] = {}
        for row in ws.iter_rows():
            for cell in row:
                if cell.comment is not None and str(cell.comment.text or "").strip():
                    comments.setdefault(ws.title, {})[cell.coordinate] = str(cell.comment.text).strip()
                value = cell.value
                if value is None:
                    continue
                if isinstance(value, str) and value.startswith("="):
                    cells[cell.coordinate] = CellData(value, cws[cell.coordinate].value)
                elif hasattr(value, "text") and str(getattr(value, "text", "")).startswith("="):
                    # Array formulas come back as objects carrying the formula text.
                    cells[cell.coordinate] = CellData(str(value.text), cws[cell.coordinate].value)
                else:
                    cells[cell.coordinate] = CellData(None, value)
        sheets[ws.title] = cells
    return Workbook(path, sheets, [ws.title for ws in formulas.worksheets], comments)


def read_docx(path: Path) -> Report:
    import docx
    from docx.opc.exceptions import PackageNotFoundError
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    try:
        document = docx.Document(str(path))
    except (OSError, zipfile.BadZipFile, KeyError, ValueError, PackageNotFoundError) as exc:
        raise SourceFormatError(path, f"not a readable DOCX document: {exc}") from exc
    report = Report(path, [Section("", 0, "")])
    body = document.element.body
    # Walk paragraphs and tables in document order, so tables land in the section they sit in.
    for child in body.iterchildren():
        tag = child.tag.rsplit("}", 1)[-1]
        if tag == "p":
            paragraph = Paragraph(child, document)
            style = (paragraph.style.name if paragraph.style is not None else "") or ""
            level = heading_level(style)
            if level:
                report.sections.append(Section(paragraph.text.strip(), level, ""))
            elif paragraph.text.strip():
                _append(report, paragraph.text)
        elif tag == "tbl":
            table = Table(child, document)
            for row in table.rows:
                _append(report, "\t".join(cell.text.strip() for cell in row.cells))
    return report


def heading_level(style: str) -> int:
    """The heading level a Word paragraph style gives (Title: 1), 0 for body text."""
    if style == "Title":
        return 1
    m = re.match(r"Heading\s*(\d)", style)
    return int(m.group(1)) if m else 0


def _append(report: Report, line: str) -> None:
    last = report.sections[-1]
    last.text = f"{last.text}\n{line}" if last.text else line


HEADING_RE = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def read_markdown(path: Path) -> Report:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SourceFormatError(path, f"not a readable UTF-8 text report: {exc}") from exc
    return markdown_report(text, path)


def markdown_report(text: str, path: Path) -> Report:
    """Markdown text as a report (``path`` names where it came from: a file, or an agent's message)."""
    report = Report(path, [Section("", 0, "")])
    fenced = False
    for line in text.splitlines():
        if line.strip().startswith("```"):
            fenced = not fenced
        m = None if fenced else HEADING_RE.match(line)
        if m:
            report.sections.append(Section(m.group(2).strip(), len(m.group(1)), ""))
        elif line.strip():
            _append(report, line)
    return report


def read_csv(path: Path) -> Workbook:
    """A CSV deliverable as a one-sheet workbook named after the file stem."""
    import csv

    from openpyxl.utils.cell import get_column_letter

    try:
        with path.open(newline="", encoding="utf-8") as handle:
            rows = list(csv.reader(handle))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise SourceFormatError(path, f"not a readable CSV file: {exc}") from exc
    cells = {f"{get_column_letter(c + 1)}{r + 1}": CellData(v if v.startswith("=") else None,
                                                            None if v.startswith("=") else v)
             for r, row in enumerate(rows) for c, v in enumerate(row) if v != ""}
    return Workbook(path, {path.stem: cells}, [path.stem])


def read_pptx(path: Path) -> Report:
    """A deck as a report: one section per slide, headed by the slide's title, holding all its text."""
    from pptx import Presentation

    try:
        deck = Presentation(str(path))
    except Exception as exc:  # python-pptx raises several types for a file that is not a deck
        raise SourceFormatError(path, f"not a readable PowerPoint deck: {type(exc).__name__}") from exc
    report = Report(path, [Section("", 0, "")])
    for slide in deck.slides:
        title_shape = slide.shapes.title
        has_title = title_shape is not None and title_shape.has_text_frame
        title = title_shape.text_frame.text.strip() if has_title else ""
        report.sections.append(Section(title, 1, ""))
        for shape in slide.shapes:
            if shape is title_shape:
                continue
            if shape.has_text_frame:
                for para in shape.text_frame.paragraphs:
                    line = "".join(r.text for r in para.runs).strip()
                    if line:
                        _append(report, line)
            if getattr(shape, "has_table", False) and shape.has_table:
                for row in shape.table.rows:
                    _append(report, "\t".join(cell.text.strip() for cell in row.cells))
        if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
            report.sections[-1].notes = slide.notes_slide.notes_text_frame.text.strip()
    return report


def read_json(path: Path) -> Report:
    """A JSON deliverable as a report: one section per top-level key, one line per leaf object or value."""
    import json

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise SourceFormatError(path, f"not readable JSON: {type(exc).__name__}") from exc
    report = Report(path, [Section("", 0, "")])

    def leaf_line(value: object) -> str:
        if isinstance(value, dict):
            return "\t".join(f"{k}: {leaf_line(v)}" for k, v in value.items())
        if isinstance(value, list):
            return "; ".join(leaf_line(v) for v in value)
        # A value's line breaks are not record breaks: a JSON record stays one line.
        return "" if value is None else re.sub(r"\s*\n\s*", " ", str(value))

    def keys_of(value: object) -> list[str]:
        if isinstance(value, dict):
            return [str(k) for k in value] + [k for v in value.values() for k in keys_of(v)]
        if isinstance(value, list):
            return [k for v in value for k in keys_of(v)]
        return []

    items = data.items() if isinstance(data, dict) else [("", data)]
    for key, value in items:
        report.sections.append(Section(str(key), 1, "", keys=tuple(dict.fromkeys(keys_of(value)))))
        for element in value if isinstance(value, list) else [value]:
            line = leaf_line(element)
            if line.strip():
                _append(report, line)
    return report

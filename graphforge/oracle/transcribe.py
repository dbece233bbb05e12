"""Python code that builds a binary deliverable (xlsx, docx, pptx) the way a working agent would.

The oracle plans a deliverable with its writers (graphforge.oracle.writers / family) into a draft file;
this module reads the draft back and writes the openpyxl / python-docx / python-pptx script that builds
the same content, so the recorded demonstration is the ``run_python`` call an agent makes, and the
deliverable that is judged is the one that script wrote in the sandbox.
"""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path
from typing import Any


def _literal(value: Any) -> str:
    if isinstance(value, bool) or value is None or isinstance(value, int | str):
        return repr(value)
    if isinstance(value, float):
        return repr(round(value, 10))
    if isinstance(value, datetime | date):
        return repr(value.isoformat())
    return repr(str(value))


def _trim(row: list[Any]) -> list[Any]:
    while row and row[-1] is None:
        row.pop()
    return row


def xlsx_code(draft: Path, name: str) -> str:
    """An openpyxl script: one list of rows per sheet, appended from A1 (formulas kept as formulas)."""
    import openpyxl

    book = openpyxl.load_workbook(draft)
    lines = ["from openpyxl import Workbook", "", "wb = Workbook()", "wb.remove(wb.active)", "sheets = {"]
    for ws in book.worksheets:
        lines.append(f"    {ws.title!r}: [")
        for row in ws.iter_rows(min_row=1, max_row=ws.max_row, values_only=True):
            lines.append("        [" + ", ".join(_literal(v) for v in _trim(list(row))) + "],")
        lines.append("    ],")
    lines += [
        "}",
        "for title, rows in sheets.items():",
        "    ws = wb.create_sheet(title)",
        "    for row in rows:",
        "        ws.append(row)",
        f"wb.save({name!r})",
        f"print('saved', {name!r}, 'with sheets', list(sheets))",
    ]
    return "\n".join(lines) + "\n"


def docx_code(draft: Path, name: str) -> str:
    """A python-docx script: the headings and paragraphs in order."""
    import docx

    doc = docx.Document(str(draft))
    blocks: list[tuple[str, str]] = []
    for p in doc.paragraphs:
        style = p.style.name if p.style is not None else ""
        if style.startswith("Heading ") and style.split()[-1].isdigit():
            blocks.append((f"h{style.split()[-1]}", p.text))
        elif style == "Title":
            blocks.append(("h0", p.text))
        else:
            blocks.append(("p", p.text))
    lines = ["from docx import Document", "", "doc = Document()", "content = ["]
    lines += [f"    ({kind!r}, {text!r})," for kind, text in blocks]
    lines += [
        "]",
        "for kind, text in content:",
        "    if kind.startswith('h'):",
        "        doc.add_heading(text, level=int(kind[1:]))",
        "    else:",
        "        doc.add_paragraph(text)",
        f"doc.save({name!r})",
        f"print('saved', {name!r}, 'with', len(content), 'paragraphs')",
    ]
    return "\n".join(lines) + "\n"


def pptx_code(draft: Path, name: str) -> str:
    """A python-pptx script: one title-only slide per section, its lines in a text box."""
    from pptx import Presentation

    deck = Presentation(str(draft))
    slides: list[tuple[str, list[str]]] = []
    for slide in deck.slides:
        title_shape = slide.shapes.title
        title = title_shape.text_frame.text if title_shape is not None else ""
        body: list[str] = []
        for shape in slide.shapes:
            if shape is title_shape or not shape.has_text_frame:
                continue
            body += [p.text for p in shape.text_frame.paragraphs]
        slides.append((title, body))
    lines = ["from pptx import Presentation", "from pptx.util import Inches", "", "deck = Presentation()",
             "slides = ["]
    for title, body in slides:
        lines.append(f"    ({title!r}, [")
        lines += [f"        {text!r}," for text in body]
        lines.append("    ]),")
    lines += [
        "]",
        "for title, body in slides:",
        "    slide = deck.slides.add_slide(deck.slide_layouts[5])  # title only",
        "    slide.shapes.title.text = title",
        "    box = slide.shapes.add_textbox(Inches(0.5), Inches(1.5), Inches(9), Inches(5))",
        "    box.text_frame.text = body[0] if body else ''",
        "    for line in body[1:]:",
        "        box.text_frame.add_paragraph().text = line",
        f"deck.save({name!r})",
        f"print('saved', {name!r}, 'with', len(slides), 'slides')",
    ]
    return "\n".join(lines) + "\n"


def build_code(draft: Path, name: str, kind: str) -> str:
    """The script that builds ``name`` (format ``kind``: xlsx, docx or pptx) with the draft's content."""
    return {"xlsx": xlsx_code, "docx": docx_code, "pptx": pptx_code}[kind](draft, name)

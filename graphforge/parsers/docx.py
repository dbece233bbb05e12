"""DOCX with python-docx: paragraphs ("para=12"), tables ("table=2", rows as tab-separated lines), text
boxes ("textbox=1", after the paragraph that anchors them) and headers and footers ("header=1",
"footer=1", after the body; a header linked to the previous section's is not repeated).

Structure survives into span text: a paragraph styled Title or Heading N (or a style based on one, or
with an outline level) reads ``#``×N + space + its text, so "Heading 2" gives ``## Scope``; a table's
span is its rows as tab-separated lines, the first line its first (header) row. A paragraph or table
over the span cap is split into ``;part=K`` spans (a table part repeats the header row), never cut. A
table nested in a cell reads inside that cell as ``a | b; c | d`` (cells, rows), so the outer row stays
one tab-separated line.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

from graphforge.models.workspace import SpanKind
from graphforge.parsers.base import Extracted, ParsedSpan, ParseLimits, Refused, make_spans
from graphforge.parsers.safety import check_package
from graphforge.parsers.text import table_parts

NAME = "python-docx"
_HEADING_STYLE_RE = re.compile(r"^heading\s*([1-9])$", re.IGNORECASE)
_CELL_BREAK_RE = re.compile(r"\s*[\t\r\n]+\s*")
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
# A text box's paragraphs, except the VML copy Word writes as the fallback of a DrawingML text box.
_TEXT_BOX_XPATH = ".//w:txbxContent[not(ancestor::mc:Fallback)]"
_XPATH_NS = {"w": _W[1:-1], "mc": "http://schemas.openxmlformats.org/markup-compatibility/2006"}


def parse(path: Path, limits: ParseLimits) -> Extracted:
    from docx import Document
    from docx.table import Table

    check_package(path, limits)
    doc = Document(str(path))
    spans: list[ParsedSpan] = []
    paragraphs = tables = boxes = 0
    levels: dict[str, int | None] = {}  # style id -> heading level, resolved once per style
    # Body order matters: a table sits between the paragraphs that introduce and discuss it.
    for block in doc.iter_inner_content():
        if not isinstance(block, Table):
            for box in _text_boxes(block._p):
                boxes += 1
                spans.extend(make_spans(f"textbox={boxes}", SpanKind.PARAGRAPH, box, limits))
        if isinstance(block, Table):
            tables += 1
            lines = [line for line in (_row_text(row) for row in block.rows) if line.strip("\t ")]
            parts = table_parts(lines, limits.max_span_chars) if lines else []
            for i, part in enumerate(parts, start=1):
                locator = f"table={tables}" if len(parts) == 1 else f"table={tables};part={i}"
                spans.extend(make_spans(locator, SpanKind.TABLE, part, limits))
        else:
            text = block.text.strip()
            if not text:
                continue  # empty paragraphs are layout, not content; numbering counts text paragraphs
            paragraphs += 1
            level = _heading_level(block, levels)
            if level:
                text = "#" * level + " " + " ".join(text.split())
            spans.extend(make_spans(f"para={paragraphs}", SpanKind.PARAGRAPH, text, limits))
        if len(spans) > limits.max_spans:
            raise Refused(f"document has more than {limits.max_spans} paragraphs and tables (cap)")
    numbers = {"header": 0, "footer": 0}
    for kind, text in _headers_and_footers(doc):
        numbers[kind] += 1
        spans.extend(make_spans(f"{kind}={numbers[kind]}", SpanKind.PARAGRAPH, text, limits))
    if len(spans) > limits.max_spans:
        raise Refused(f"document has more than {limits.max_spans} paragraphs and tables (cap)")
    return Extracted(spans=spans)


@functools.cache
def _text_box_xpath() -> Any:
    from lxml import etree  # type: ignore[import-untyped]

    return etree.XPath(_TEXT_BOX_XPATH, namespaces=_XPATH_NS)


def _text_boxes(element: Any) -> list[str]:
    """The text of each text box anchored in a paragraph, one string per box (its paragraphs as lines)."""
    out = []
    for box in _text_box_xpath()(element):
        lines = ["".join(t.text or "" for t in p.iter(f"{_W}t")).strip() for p in box.iter(f"{_W}p")]
        text = "\n".join(line for line in lines if line)
        if text:
            out.append(text)
    return out


def _headers_and_footers(doc: Any) -> list[tuple[str, str]]:
    """("header" | "footer", text) for each distinct header and footer the sections define."""
    out: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()
    for section in doc.sections:
        headers = (section.header, section.first_page_header, section.even_page_header)
        footers = (section.footer, section.first_page_footer, section.even_page_footer)
        for kind, parts in (("header", headers), ("footer", footers)):
            for part in parts:
                if part.is_linked_to_previous:  # no definition of its own: the previous one shows
                    continue
                text = _story_text(part)
                if text and (kind, text) not in seen:
                    seen.add((kind, text))
                    out.append((kind, text))
    return out


def _story_text(story: Any) -> str:
    """A header's or footer's paragraphs and table rows, one line each."""
    from docx.table import Table

    lines: list[str] = []
    for block in story.iter_inner_content():
        if isinstance(block, Table):
            lines.extend(line for line in (_row_text(row) for row in block.rows) if line.strip("\t "))
        elif block.text.strip():
            lines.append(" ".join(block.text.split()))
    return "\n".join(lines)


def _heading_level(paragraph: Any, cache: dict[str, int | None]) -> int | None:
    """1-6 for Title / Heading N / a style based on one / an explicit outline level; None for body text."""
    outline = paragraph._p.find(
        "./{http://schemas.openxmlformats.org/wordprocessingml/2006/main}pPr/"
        "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}outlineLvl"
    )
    if outline is not None:
        value = outline.get("{http://schemas.openxmlformats.org/wordprocessingml/2006/main}val", "")
        if value.isdigit() and int(value) < 9:
            return min(6, int(value) + 1)
    style_id = paragraph._p.style  # the pStyle id, or None for the default paragraph style
    if not style_id:
        return None
    if style_id not in cache:
        try:
            cache[style_id] = _style_level(paragraph.style)
        except (KeyError, ValueError, AttributeError):
            cache[style_id] = None
    return cache[style_id]


def _style_level(style: Any) -> int | None:
    seen = 0
    while style is not None and seen < 10:  # based-on chains are short; a cycle must not loop forever
        seen += 1
        name = (style.name or "").strip()
        if name.lower() == "title":
            return 1
        match = _HEADING_STYLE_RE.match(name)
        if match:
            return min(6, int(match.group(1)))
        ppr = style.element.pPr
        outline = None if ppr is None else ppr.find(
            "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}outlineLvl"
        )
        if outline is not None:
            value = outline.get("{http://schemas.openxmlformats.org/wordprocessingml/2006/main}val", "")
            if value.isdigit() and int(value) < 9:
                return min(6, int(value) + 1)
        style = style.base_style
    return None


def _row_text(row: object) -> str:
    cells: list[str] = []
    previous: object = None
    for cell in row.cells:  # type: ignore[attr-defined]
        # A horizontally merged cell is returned once per grid column; show it once.
        if cell._tc is previous:
            continue
        previous = cell._tc
        cells.append(_cell_text(cell))
    return "\t".join(cells)


def _cell_text(cell: Any) -> str:
    """A cell's paragraphs on one line; a nested table as ``a | b; c | d`` in its place."""
    from docx.table import Table

    parts = []
    for block in cell.iter_inner_content():
        if isinstance(block, Table):
            rows = [" | ".join(_cell_text(c) for c in _unique_cells(row)) for row in block.rows]
            parts.append("; ".join(rows))
        else:
            parts.append(block.text)
    return _CELL_BREAK_RE.sub(" ", " ".join(p.strip() for p in parts if p.strip()))


def _unique_cells(row: Any) -> list[Any]:
    out, previous = [], None
    for cell in row.cells:
        if cell._tc is not previous:
            out.append(cell)
        previous = cell._tc
    return out

"""DOCX with python-docx: paragraphs ("para=12") and tables ("table=2", rows as tab-separated lines).

Structure survives into span text: a paragraph styled Title or Heading N (or a style based on one, or
with an outline level) reads ``#``×N + space + its text, so "Heading 2" gives ``## Scope``; a table's
span is its rows as tab-separated lines, the first line its first (header) row. A paragraph or table
over the span cap is split into ``;part=K`` spans (a table part repeats the header row), never cut.
"""

from __future__ import annotations

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


def parse(path: Path, limits: ParseLimits) -> Extracted:
    from docx import Document
    from docx.table import Table

    check_package(path, limits)
    doc = Document(str(path))
    spans: list[ParsedSpan] = []
    paragraphs = tables = 0
    levels: dict[str, int | None] = {}  # style id -> heading level, resolved once per style
    # Body order matters: a table sits between the paragraphs that introduce and discuss it.
    for block in doc.iter_inner_content():
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
    return Extracted(spans=spans)


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
        cells.append(_CELL_BREAK_RE.sub(" ", cell.text.strip()))
    return "\t".join(cells)

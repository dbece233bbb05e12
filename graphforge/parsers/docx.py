"""DOCX with python-docx: paragraphs ("para=12") and tables ("table=2", rows as tab-separated lines)."""

from __future__ import annotations

from pathlib import Path

from graphforge.models.workspace import SpanKind
from graphforge.parsers.base import ParsedSpan, ParseLimits, Refused, clip
from graphforge.parsers.safety import check_package

NAME = "python-docx"


def parse(path: Path, limits: ParseLimits) -> tuple[list[ParsedSpan], int | None]:
    from docx import Document
    from docx.table import Table

    check_package(path, limits)
    doc = Document(str(path))
    spans: list[ParsedSpan] = []
    paragraphs = tables = 0
    # Body order matters: a table sits between the paragraphs that introduce and discuss it.
    for block in doc.iter_inner_content():
        if isinstance(block, Table):
            tables += 1
            text = "\n".join(_row_text(row) for row in block.rows)
            if text.strip():
                spans.append(ParsedSpan(locator=f"table={tables}", kind=SpanKind.TABLE, text=clip(text)))
        else:
            text = block.text.strip()
            if not text:
                continue  # empty paragraphs are layout, not content; numbering counts text paragraphs
            paragraphs += 1
            spans.append(ParsedSpan(locator=f"para={paragraphs}", kind=SpanKind.PARAGRAPH, text=clip(text)))
        if len(spans) > limits.max_spans:
            raise Refused(f"document has more than {limits.max_spans} paragraphs and tables (cap)")
    return spans, None


def _row_text(row: object) -> str:
    cells: list[str] = []
    previous: object = None
    for cell in row.cells:  # type: ignore[attr-defined]
        # A horizontally merged cell is returned once per grid column; show it once.
        if cell._tc is previous:
            continue
        previous = cell._tc
        cells.append(cell.text.strip())
    return "\t".join(cells)

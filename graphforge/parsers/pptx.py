"""PPTX with python-pptx: one span per slide ("slide=4"): titles, text frames, tables, speaker notes."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from graphforge.models.workspace import SpanKind
from graphforge.parsers.base import ParsedSpan, ParseLimits, Refused, clip
from graphforge.parsers.safety import check_package

NAME = "python-pptx"


def parse(path: Path, limits: ParseLimits) -> tuple[list[ParsedSpan], int | None]:
    from pptx import Presentation

    check_package(path, limits)
    prs = Presentation(str(path))
    spans: list[ParsedSpan] = []
    count = 0
    for number, slide in enumerate(prs.slides, start=1):
        count = number
        if number > limits.max_pages:
            raise Refused(f"presentation has more than {limits.max_pages} slides (cap)")
        lines = list(_shape_lines(slide.shapes))
        if slide.has_notes_slide:
            notes = slide.notes_slide.notes_text_frame
            if notes is not None and notes.text.strip():
                lines.append("Notes: " + notes.text.strip())
        text = "\n".join(line for line in lines if line.strip())
        if text:
            spans.append(ParsedSpan(locator=f"slide={number}", kind=SpanKind.SLIDE, text=clip(text)))
    return spans, count


def _shape_lines(shapes: Iterable[Any]) -> Iterator[str]:
    from pptx.shapes.group import GroupShape

    for shape in shapes:
        # isinstance, not shape.shape_type: python-pptx raises NotImplementedError for a shape with no
        # preset or custom geometry that is not a text box (valid OOXML some exporters write), and one
        # such shape made the whole deck invalid.
        if isinstance(shape, GroupShape):
            yield from _shape_lines(shape.shapes)
        elif getattr(shape, "has_table", False):
            for row in shape.table.rows:
                yield "\t".join(cell.text.strip() for cell in row.cells)
        elif getattr(shape, "has_text_frame", False):
            yield shape.text_frame.text.strip()

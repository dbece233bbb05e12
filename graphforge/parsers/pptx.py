"""PPTX with python-pptx: one span per slide ("slide=4"): titles, text frames, tables, speaker notes.

The slide title is the span's first line as a markdown heading (``# Quarterly results``); a table is its
rows as tab-separated lines, header row first; a chart is ``Chart: <title>`` and then its data as such a
table (a ``series`` header row of categories, one row of values per series, from the values the chart
caches); notes follow as ``Notes: ...``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from graphforge.models.workspace import SpanKind
from graphforge.parsers.base import Extracted, ParsedSpan, ParseLimits, Refused, make_spans
from graphforge.parsers.safety import check_package

NAME = "python-pptx"


def parse(path: Path, limits: ParseLimits) -> Extracted:
    from pptx import Presentation

    check_package(path, limits)
    prs = Presentation(str(path))
    spans: list[ParsedSpan] = []
    count = 0
    for number, slide in enumerate(prs.slides, start=1):
        count = number
        if number > limits.max_pages:
            raise Refused(f"presentation has more than {limits.max_pages} slides (cap)")
        title_shape = _title(slide)
        lines: list[str] = []
        if title_shape is not None and title_shape.text_frame.text.strip():
            lines.append("# " + " ".join(title_shape.text_frame.text.split()))
        lines.extend(_shape_lines(slide.shapes, None if title_shape is None else title_shape.shape_id))
        if slide.has_notes_slide:
            notes = slide.notes_slide.notes_text_frame
            if notes is not None and notes.text.strip():
                lines.append("Notes: " + notes.text.strip())
        text = "\n".join(line for line in lines if line.strip())
        if text:
            spans.extend(make_spans(f"slide={number}", SpanKind.SLIDE, text, limits))
    return Extracted(spans=spans, pages=count)


def _title(slide: Any) -> Any:
    """The slide's title placeholder (title or centred title), when it has a text frame."""
    try:
        shape = slide.shapes.title
    except (KeyError, ValueError, AttributeError, NotImplementedError):
        return None
    return shape if shape is not None and getattr(shape, "has_text_frame", False) else None


def _shape_lines(shapes: Iterable[Any], skip_id: int | None = None) -> Iterator[str]:
    from pptx.shapes.group import GroupShape

    for shape in shapes:
        if skip_id is not None and getattr(shape, "shape_id", None) == skip_id:
            continue  # the title, already the first line
        # isinstance, not shape.shape_type: python-pptx raises NotImplementedError for a shape with no
        # preset or custom geometry that is not a text box (valid OOXML some exporters write), and one
        # such shape made the whole deck invalid.
        if isinstance(shape, GroupShape):
            yield from _shape_lines(shape.shapes, skip_id)
        elif getattr(shape, "has_chart", False):
            yield from _chart_lines(shape.chart)
        elif getattr(shape, "has_table", False):
            for row in shape.table.rows:
                yield "\t".join(" ".join(cell.text.split()) for cell in row.cells)
        elif getattr(shape, "has_text_frame", False):
            yield shape.text_frame.text.strip()


def _chart_lines(chart: Any) -> Iterator[str]:
    """A chart's title and cached data as tab-separated rows; a chart whose XML python-pptx cannot read
    yields only what it could (the deck stays readable)."""
    try:
        title = chart.chart_title.text_frame.text.strip() if chart.has_title else ""
    except (AttributeError, KeyError, ValueError):
        title = ""
    yield f"Chart: {' '.join(title.split())}" if title else "Chart"
    for plot in _safe(lambda: list(chart.plots)) or []:
        categories = _safe(lambda p=plot: [str(c) for c in p.categories]) or []
        if categories:
            yield "\t".join(["series", *(" ".join(c.split()) for c in categories)])
        for series in _safe(lambda p=plot: list(p.series)) or []:
            values = _safe(lambda s=series: list(s.values)) or []
            cells = [_number(v) for v in values]
            yield "\t".join([" ".join(str(series.name or "").split()) or "(unnamed)", *cells])


def _number(value: Any) -> str:
    """A cached chart value as written: whole numbers without ".0", others in their shortest exact form."""
    if value is None:
        return ""
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    return str(value)


def _safe(read: Any) -> Any:
    try:
        return read()
    except (AttributeError, KeyError, ValueError, TypeError, NotImplementedError, IndexError):
        return None

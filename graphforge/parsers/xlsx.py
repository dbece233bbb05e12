"""XLSX with openpyxl: one span per non-empty sheet row ("sheet=Q2!A3:D3"), values and formulas both."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import date, datetime, time
from pathlib import Path
from typing import Any

from openpyxl.utils import get_column_letter

from graphforge.models.workspace import SpanKind
from graphforge.parsers.base import ParsedSpan, ParseLimits, Refused, clip
from graphforge.parsers.safety import check_package

NAME = "openpyxl"
_PLAIN_SHEET = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*$")


def parse(path: Path, limits: ParseLimits) -> tuple[list[ParsedSpan], int | None]:
    from openpyxl import load_workbook

    check_package(path, limits)
    # Two read-only passes over the same XML: formulas (data_only=False) and the values Excel cached
    # for them (data_only=True). Read-only mode streams rows instead of building every cell up front.
    formulas_wb = load_workbook(path, read_only=True, data_only=False)
    values_wb = load_workbook(path, read_only=True, data_only=True)
    spans: list[ParsedSpan] = []
    cells = 0
    try:
        for name in formulas_wb.sheetnames:
            fws, vws = formulas_wb[name], values_wb[name]
            if not hasattr(fws, "reset_dimensions"):
                continue  # a chartsheet: no cells
            # The stored <dimension> may claim A1:XFD1048576; trusting it makes openpyxl pad every row and
            # column up to that size. Forget it and walk only the rows that exist.
            fws.reset_dimensions()
            vws.reset_dimensions()
            for row_index, frow, vrow in _rows(fws, vws, limits, name):
                cells += len(frow)
                if cells > limits.max_cells:
                    raise Refused(
                        f"workbook has more than {limits.max_cells} cells (cap); stopped in sheet {name!r}"
                    )
                span = _row_span(name, row_index, frow, vrow)
                if span is not None:
                    spans.append(span)
                    if len(spans) > limits.max_spans:
                        raise Refused(f"workbook has more than {limits.max_spans} non-empty rows (cap)")
    finally:
        formulas_wb.close()
        values_wb.close()
    return spans, len(formulas_wb.sheetnames)


def _rows(
    fws: Any, vws: Any, limits: ParseLimits, name: str
) -> Iterator[tuple[int, tuple[Any, ...], tuple[Any, ...]]]:
    row_index = 0
    for frow, vrow in zip(fws.iter_rows(), vws.iter_rows(), strict=False):
        row_index += 1  # openpyxl yields an empty tuple for every missing row, so the count is the row number
        if row_index > limits.max_rows:
            raise Refused(
                f"sheet {name!r} has rows beyond row {limits.max_rows} (cap); a sheet claiming "
                f"~1M rows is refused rather than padded"
            )
        if frow:
            yield row_index, frow, vrow


def _row_span(sheet: str, row_index: int, frow: tuple[Any, ...], vrow: tuple[Any, ...]) -> ParsedSpan | None:
    """One row as a span: cells from column A to the last non-empty one, tab-joined, empty cells kept as ""
    so positions line up with the header row's span."""
    shown: dict[int, str] = {}
    formulas: dict[str, str] = {}
    values = {getattr(c, "column", None): getattr(c, "value", None) for c in vrow}
    for cell in frow:
        raw = getattr(cell, "value", None)
        column = getattr(cell, "column", None)
        if raw is None or column is None:
            continue
        if isinstance(raw, str) and raw.startswith("="):
            formulas[f"{get_column_letter(column)}{row_index}"] = raw
            cached = values.get(column)
            text = _show(cached) if cached is not None else raw  # no cached value: show the formula itself
        else:
            text = _show(raw)
        if text:
            shown[column] = text
    if not shown:
        return None
    last = max(shown)
    text = "\t".join(shown.get(col, "") for col in range(1, last + 1))
    return ParsedSpan(
        locator=f"sheet={sheet_ref(sheet)}!A{row_index}:{get_column_letter(last)}{row_index}",
        kind=SpanKind.CELL_RANGE,
        text=clip(text),
        formulas_json=json.dumps(formulas, sort_keys=True) if formulas else "",
    )


def sheet_ref(name: str) -> str:
    """A sheet name as Excel writes it in a reference: quoted when it has spaces or punctuation."""
    return name if _PLAIN_SHEET.match(name) else "'" + name.replace("'", "''") + "'"


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    if isinstance(value, datetime):
        return value.isoformat(sep=" ") if value.time() != time(0) else value.date().isoformat()
    if isinstance(value, date | time):
        return value.isoformat()
    return str(value).strip()

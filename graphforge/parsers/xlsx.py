"""XLSX with openpyxl: one span per sheet row that holds a value ("sheet=Q2!A3:D3"), values and formulas.

Rows come from the cells the sheet XML really holds, never from its declared ``<dimension>`` (a sheet
claiming A1:XFD1048576 with 4 values gives 4 values). A row with no value of its own, only formulas
whose cached results are empty or zero (the unfilled rows of a form template), is not a span; its
formulas stay on the File node (``formulas_json``, by ``Sheet!A1`` address) for the judge.
"""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Iterator
from datetime import date, datetime, time, timedelta
from functools import partial
from pathlib import Path
from typing import Any

from openpyxl.utils import get_column_letter

from graphforge.models.workspace import SpanKind
from graphforge.parsers.base import Extracted, ParseLimits, Refused, row_spans
from graphforge.parsers.safety import check_package

NAME = "openpyxl"
_PLAIN_SHEET = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*$")
_TEMPLATE_FORMULAS_CAP = 20_000  # formulas kept per workbook from value-less rows; the rest are counted


def parse(path: Path, limits: ParseLimits) -> Extracted:
    from openpyxl import load_workbook

    check_package(path, limits)
    # One read-only pass over each sheet's XML gives both a formula cell's formula and the value Excel
    # cached for it (openpyxl alone needs two workbooks, data_only False/True, and twice the time).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "extension is not supported": data validation, slicers, ...
        wb = load_workbook(path, read_only=True, data_only=True)
    out = Extracted(pages=len(wb.sheetnames))
    template: dict[str, str] = {}
    template_rows = template_dropped = 0
    cells = rows = 0
    try:
        for name in wb.sheetnames:
            ws = wb[name]
            if not hasattr(ws, "_get_source"):
                continue  # a chartsheet: no cells
            for row_index, row in _quiet(_rows(ws)):
                cells += len(row)
                if cells > limits.max_cells:
                    raise Refused(
                        f"workbook has more than {limits.max_cells} cells (cap); stopped in sheet {name!r}"
                    )
                text, _, formulas, has_value = _row(row_index, row)
                if not has_value:
                    if formulas:
                        template_rows += 1
                        for address, formula in formulas.items():
                            if len(template) < _TEMPLATE_FORMULAS_CAP:
                                template[f"{sheet_ref(name)}!{address}"] = formula
                            else:
                                template_dropped += 1
                    continue
                rows += 1
                if rows > limits.max_rows:
                    out.dropped_rows += 1
                    out.dropped_chars += len(text)
                    continue
                out.spans.extend(
                    row_spans(
                        partial(_range_locator, sheet_ref(name), row_index),
                        SpanKind.CELL_RANGE,
                        text.split("\t"),
                        limits,
                        json.dumps(formulas, sort_keys=True) if formulas else "",
                    )
                )
                if len(out.spans) > limits.max_spans:
                    raise Refused(f"workbook has more than {limits.max_spans} non-empty rows (cap)")
    finally:
        wb.close()
    if out.dropped_rows:
        out.warnings.append(
            f"{out.dropped_rows} rows with values after the first {limits.max_rows} not stored "
            f"(row cap max_rows)"
        )
    if template_rows:
        out.warnings.append(
            f"{template_rows} rows hold formulas but no values (template rows): not spans; their formulas "
            f"are on the file (formulas_json)"
            + (f", {template_dropped} formulas over the cap of {_TEMPLATE_FORMULAS_CAP} not kept"
               if template_dropped else "")
        )
        out.formulas_json = json.dumps(template, sort_keys=True)
    return out


def _quiet(rows: Iterator[tuple[int, list[dict[str, Any]]]]) -> Iterator[tuple[int, list[dict[str, Any]]]]:
    """The rows, with openpyxl's "extension is not supported" warnings (raised while parsing) silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield from rows


def _rows(ws: Any) -> Iterator[tuple[int, list[dict[str, Any]]]]:
    """(row number, cells) for every row element of the sheet XML that holds a value or a formula.

    openpyxl's worksheet parser is used directly: ``iter_rows`` pads every missing row and column up to
    the sheet's extent (a million empty tuples for one far cell), this yields only what the XML has.
    Each cell dict has ``value`` (the cached value for a formula cell) and, for formula cells, ``formula``.
    """
    from lxml import etree  # type: ignore[import-untyped]
    from openpyxl.worksheet._reader import FORMULA_TAG, ROW_TAG, WorkSheetParser

    class BothParser(WorkSheetParser):
        def parse_row(self, row: Any) -> tuple[int, list[dict[str, Any]]]:
            # Cells with a reference and no child (<c r="B7" s="3"/>: formatting only) hold nothing;
            # whole-column formatting gives thousands per sheet. The rest go through openpyxl.
            if all(c.get("r") for c in row):
                for cell in [c for c in row if len(c) == 0]:
                    row.remove(cell)
            result: tuple[int, list[dict[str, Any]]] = super().parse_row(row)
            return result

        def parse_cell(self, element: Any) -> dict[str, Any]:
            cell: dict[str, Any] = super().parse_cell(element)  # data_only: the cached value
            if element.find(FORMULA_TAG) is not None:
                formula = self.parse_formula(element)  # type: ignore[no-untyped-call]
                text = formula if isinstance(formula, str) else getattr(formula, "text", formula)
                cell["formula"] = str(text)
            return cell

    wb = ws.parent
    with ws._get_source() as src:
        parser = BothParser(
            src,
            ws._shared_strings,
            data_only=True,
            epoch=wb.epoch,
            date_formats=wb._date_formats,
            timedelta_formats=wb._timedelta_formats,
        )
        # lxml walks the XML (openpyxl's own pull parser on the standard library was half the time);
        # each <row> still goes through openpyxl's parse_row, so values, dates and shared formulas
        # read exactly as openpyxl reads them. DOCTYPEs were refused by check_package already.
        for _, element in etree.iterparse(
            src, events=("end",), tag=ROW_TAG, resolve_entities=False, no_network=True, huge_tree=True
        ):
            index, row = parser.parse_row(element)
            element.clear()
            while element.getprevious() is not None:
                del element.getparent()[0]
            if any(c.get("value") is not None or "formula" in c for c in row):
                yield index, row


def _row(row_index: int, row: list[dict[str, Any]]) -> tuple[str, int, dict[str, str], bool]:
    """One row as tab-joined text from column A to its last shown cell (empty cells kept as "" so
    positions line up with the header row's span), its formulas, and whether it holds any value."""
    shown: dict[int, str] = {}
    formulas: dict[str, str] = {}
    has_value = False
    for cell in row:
        value, column = cell.get("value"), cell["column"]
        formula = cell.get("formula")
        if formula is not None:
            formulas[f"{get_column_letter(column)}{row_index}"] = formula
            if value not in (None, "", 0):
                has_value = True
            text = _show(value) if value is not None else formula  # no cached value: the formula itself
        elif value is None:
            continue
        else:
            text = _show(value)
            has_value = has_value or bool(text)
        if text:
            shown[column] = text
    if not shown:
        return "", 0, formulas, False
    last = max(shown)
    return "\t".join(shown.get(col, "") for col in range(1, last + 1)), last, formulas, has_value


def _range_locator(sheet: str, row_index: int, first: int, last: int) -> str:
    """``sheet=Name!B7:K7``: the cells ``first..last`` (0-based columns) of one row."""
    return f"sheet={sheet}!{get_column_letter(first + 1)}{row_index}:{get_column_letter(last + 1)}{row_index}"


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
    if isinstance(value, timedelta):
        return str(value)
    return str(value).strip().replace("\t", " ")  # a tab inside a cell would shift the columns

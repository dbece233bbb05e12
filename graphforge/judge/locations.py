"""Criterion targets: ``Sheet!B4``, ``'My Sheet'!A2:D9``, ``Sheet``, ``section=Variance;label=Net``."""

from __future__ import annotations

import re
from dataclasses import dataclass

from openpyxl.utils.cell import column_index_from_string, get_column_letter

_CELL = r"\$?([A-Za-z]{1,3})\$?(\d+)"
CELL_RE = re.compile(rf"^{_CELL}$")
RANGE_RE = re.compile(rf"^{_CELL}:{_CELL}$")
# Required formula: "Sheet!B5", "Sheet!B5:SUM", "Sheet!B5=SUM(", "Sheet!B5 SUM".
REQUIRED_FORMULA_RE = re.compile(
    rf"^(?P<ref>.+?!{_CELL})(?:\s*[:=| ]\s*(?P<func>[A-Za-z][A-Za-z0-9.]*)\(?\)?)?$"
)


@dataclass(frozen=True)
class Location:
    """Where a criterion looks. Exactly one family is set: spreadsheet (sheet[/cells]) or report (section)."""

    sheet: str | None = None
    cells: tuple[str, ...] = ()  # upper-case A1 refs, row-major; empty = the whole sheet
    section: str | None = None
    label: str | None = None
    raw: str = ""

    @property
    def is_sheet(self) -> bool:
        return self.sheet is not None

    @property
    def cell(self) -> str | None:
        return self.cells[0] if self.cells else None


def split_ref(ref: str) -> tuple[str | None, str]:
    """``'My Sheet'!B4`` -> ("My Sheet", "B4"); ``B4`` -> (None, "B4")."""
    if "!" not in ref:
        return None, ref
    sheet, _, cell = ref.rpartition("!")
    sheet = sheet.strip()
    if len(sheet) >= 2 and sheet[0] == sheet[-1] == "'":
        sheet = sheet[1:-1].replace("''", "'")
    return sheet, cell.strip()


def expand_range(ref: str) -> tuple[str, ...]:
    """``B4`` -> (B4,); ``A2:B3`` -> (A2, B2, A3, B3) row-major; anything else -> ()."""
    ref = ref.replace("$", "").upper()
    if m := CELL_RE.match(ref):
        return (f"{m.group(1)}{m.group(2)}",)
    if m := RANGE_RE.match(ref):
        c1, c2 = sorted((column_index_from_string(m.group(1)), column_index_from_string(m.group(3))))
        r1, r2 = sorted((int(m.group(2)), int(m.group(4))))
        return tuple(f"{get_column_letter(c)}{r}" for r in range(r1, r2 + 1) for c in range(c1, c2 + 1))
    return ()


def parse_location(text: str | None) -> Location:
    """Parse a target location; an empty or unknown one gives Location() (the whole deliverable)."""
    raw = (text or "").strip()
    if not raw:
        return Location()
    parts = {k.strip().lower(): v.strip() for k, _, v in (p.partition("=") for p in raw.split(";")) if v}
    if raw.lower().startswith("sheet="):  # the span-locator spelling, "sheet=Summary!B4"
        return _sheet_location(parts["sheet"], raw, parts.get("label"))
    if raw.lower().startswith(("section=", "heading=", "label=")):
        return Location(
            section=parts.get("section") or parts.get("heading"), label=parts.get("label"), raw=raw
        )
    return _sheet_location(raw, raw, None)


def _sheet_location(ref: str, raw: str, label: str | None) -> Location:
    sheet, cells = split_ref(ref)
    if sheet is None:  # a bare sheet name
        return Location(sheet=cells, label=label, raw=raw)
    return Location(sheet=sheet, cells=expand_range(cells), label=label, raw=raw)


def parse_required_formula(text: str) -> tuple[str, str, str | None] | None:
    """``Sheet!B5:SUM`` -> ("Sheet", "B5", "SUM"); None when it is not a cell reference."""
    m = REQUIRED_FORMULA_RE.match(text.strip())
    if not m:
        return None
    sheet, cell = split_ref(m.group("ref"))
    if sheet is None:
        return None
    func = m.group("func")
    return sheet, cell.replace("$", "").upper(), func.upper() if func else None

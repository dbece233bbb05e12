"""Rule-based fact extraction (no model): figures in tables with row and column labels, plus simple prose.

Tables come from XLSX rows (``sheet=Q2!A3:D3``), CSV rows, DOCX tables and tab-separated lines, and from PDF
pages whose tables render one cell per line. Every figure becomes a Fact keyed by (metric, entity, period):
the metric is a measure word found in the column header, the row label or the table title ("revenue",
"costs"); the entity is what the row label says besides that ("Marine Electronics"; none for group totals);
the period comes from the column header, a period cell in the row, or the title. Totals found in a table
yield ``derive`` edges (total -> parts) when the parts add up within rounding.
"""

from __future__ import annotations

import csv
import json
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import PurePosixPath

from graphforge.evidence.base import Extraction, WorkspaceSpan, fact_id, verify
from graphforge.evidence.text_facts import is_filler, prose_facts, table_facts
from graphforge.figures.numbers import (
    Figure,
    bare_figure,
    find_figures,
    find_periods,
    is_period_label,
    is_scientific,
    is_total_label,
    metric_key,
    parse_figure,
    period_contains,
    period_of,
    scale_of,
    unit_of,
)
from graphforge.models.evidence import DependencyKind, DependsOnRow, FactKind, FactRow

NAME = "rule-based"

# Measure words, longest first so "operating profit" wins over "profit"; values are the canonical metric.
MEASURES: dict[str, str] = {
    "operating profit": "operating profit",
    "operating income": "operating profit",
    "gross profit": "gross profit",
    "net profit": "net income",
    "net income": "net income",
    "gross margin": "gross margin",
    "operating margin": "operating margin",
    "cost of sales": "cost of sales",
    "operating expenses": "costs",
    "order intake": "order intake",
    "revenues": "revenue",
    "revenue": "revenue",
    "turnover": "revenue",
    "sales": "sales",
    "costs": "costs",
    "cost": "costs",
    "expenses": "costs",
    "opex": "costs",
    "capex": "capex",
    "ebitda": "ebitda",
    "ebit": "ebit",
    "margin": "margin",
    "growth": "growth",
    "headcount": "headcount",
    "cash": "cash",
    "profit": "profit",
    "assets": "assets",
    "liabilities": "liabilities",
    "equity": "equity",
    "orders": "order intake",
    "units": "units",
    "volume": "volume",
    # Public budgets and revenue statements.
    "budget authority": "budget authority",
    "outlays": "outlays",
    "budauth": "budget authority",  # OMB's public budget database names its file so
    "outlay": "outlays",
    "receipts": "receipts",
    "obligations": "obligations",
    "appropriations": "appropriations",
    "disbursements": "disbursements",
    "royalties": "royalties",
    "rents": "rents",
    "bonuses": "bonuses",
    "fees": "fees",
    "payments": "payments",
    "spending": "spending",
    "employees": "employees",
    "employment": "employees",
    "production": "production",
}
_MEASURE_RE = re.compile(
    r"\b(" + "|".join(re.escape(m) for m in sorted(MEASURES, key=len, reverse=True)) + r")\b", re.I
)
# Subjects that mean "the whole company": facts about them carry no entity, so they match across files.
_GROUP_WORDS = {
    "",
    "total",
    "group",
    "group total",
    "grand total",
    "company",
    "consolidated",
    "all segments",
    "overall",
    "metric",
    "segment",
    "sum",
    "the group",
    "our",
}
_GENERIC_HEADERS = {
    "",
    "amount",
    "value",
    "values",
    "actual",
    "actuals",
    "reported",
    "figure",
    "figures",
    "usd",
    "eur",
    "gbp",
    "total",
    "balance",
}
_ID_HEADER_RE = re.compile(
    r"\b(id|no|code|number|ref|year|date|zip|postal|phone|fax|page|row|line|duns|ein|"
    r"fips|uei|account|acct|symbol|item|serial|version|question|clin|sprint|issue|step|rank|seq|sequence|"
    r"npi|licen[cs]e|identifier|index|ordinal)\b|#",
    re.I,
)
# Columns whose header names who or what a row is about (beside the first label column).
_IDENTITY_HEADER_RE = re.compile(
    r"\b(name|entity|agency|bureau|office|department|program|programme|project|region|state|country|"
    r"segment|division|organi[sz]ation|component|description|title)s?\b",
    re.I,
)
# Questionnaire item codes as survey exports head their columns: "Q7", "Q21B_3", "Q78B#1_2_1",
# "q33jinternal", "q11a pt".
_CODE_HEADER_RE = re.compile(r"^Q\d+[A-Z]{0,12}(?:[_#]\S*|\s[A-Z]{1,4})?$", re.I)
_PERIOD_HEADER_RE = re.compile(r"\b(year|fy|period|quarter|month|calendar|cy|date)\b", re.I)
# "refer to Section 6.11", "see Table 2.3": a number after these words points somewhere, it measures nothing.
_REFERENCE_RE = re.compile(
    r"\b(?:sections?|§|para(?:graph)?s?|clauses?|items?|pages?|chapters?|appendix|exhibits?|"
    r"attachments?|figures?|tables?|steps?|parts?|articles?|rules?|lines?|no\.?)\s*$",
    re.I,
)
_TOC_RE = re.compile(r"(?:\.\s?){4,}\s*\d{1,4}\s*$|…{2,}")  # table-of-contents leaders
_PLACE_RE = re.compile(r"\b(?:[A-Z]{2}|d\.?\s?c\.?|street|st\.|avenue|ave\.?|suite|room|box)\s*$", re.I)


def _formatted(figure: Figure) -> bool:
    """A figure printed as an amount (unit, grouping, decimals, scale word): not a bare count or code."""
    text = figure.text
    return (
        bool(figure.unit)
        or "," in text
        or "." in text
        or text.rstrip(")").endswith(("thousand", "million", "billion", "k", "m", "bn", "mn"))
    )


@dataclass
class Cell:
    text: str
    col: int
    address: str | None = None  # "B4" for spreadsheet cells
    span: WorkspaceSpan | None = None  # the span holding the cell when not the row's (a long row's part)


@dataclass
class GridRow:
    span: WorkspaceSpan
    cells: list[Cell]
    formulas: dict[str, str] = field(default_factory=dict)


@dataclass
class Grid:
    """Consecutive table rows of one file: an optional header row, data rows, and the titles above them."""

    rows: list[GridRow] = field(default_factory=list)
    context: list[str] = field(default_factory=list)
    from_text: bool = False  # rows guessed from page / section text, not a real table
    sheet: bool = False  # a spreadsheet's sheet: context[0] is the sheet's name


@dataclass
class _Placed:
    fact: FactRow
    figure: Figure
    row: int
    col: int
    period: str | None
    total_row: bool
    address: str | None
    alt: FactRow | None = None  # the same fact named by all the row's words (see _unambiguous)


def _col_index(letters: str) -> int:
    n = 0
    for ch in letters.upper():
        n = n * 26 + ord(ch) - 64
    return n - 1


def _col_letters(index: int) -> str:
    out = ""
    index += 1
    while index:
        index, rem = divmod(index - 1, 26)
        out = chr(65 + rem) + out
    return out


def _split_cells(line: str) -> list[str]:
    if "\t" in line:
        return line.split("\t")
    if "\n" in line or "\r" in line:
        # One cell that held a line break (a quoted CSV field): re-reading it as CSV raised csv.Error and
        # stopped evidence for the whole workspace.
        return [line]
    return next(csv.reader([line]), [])


_is_period = lru_cache(maxsize=262144)(is_period_label)  # called on every cell, three times a row


@lru_cache(maxsize=262144)
def _is_value(text: str) -> bool:
    return parse_figure(text) is not None and not is_period_label(text)


# ---- spans -> grids ---------------------------------------------------------------------------


def _sheet_grids(spans: Sequence[WorkspaceSpan]) -> list[Grid]:
    """XLSX row spans grouped per sheet; cells keep their spreadsheet addresses."""
    by_sheet: dict[str, Grid] = {}
    row_of: dict[int, int] = {}  # grid -> the sheet row number of its last row
    for span in spans:
        ref = span.locator.removeprefix("sheet=")
        sheet, _, rng = ref.rpartition("!")
        m = re.match(r"\$?([A-Z]+)\$?(\d+)", rng)
        if m is None:
            continue
        start, row_no = _col_index(m.group(1)), int(m.group(2))
        grid = by_sheet.setdefault(sheet.strip("'"), Grid(context=[sheet.strip("'")], sheet=True))
        cells = [
            Cell(t, start + i, f"{_col_letters(start + i)}{row_no}", span=span)
            for i, t in enumerate(span.text.split("\t"))
        ]
        try:
            formulas = {k: str(v) for k, v in json.loads(span.formulas_json or "{}").items()}
        except (ValueError, AttributeError):
            formulas = {}
        if start > 0 and grid.rows and row_of.get(id(grid)) == row_no:
            grid.rows[-1].cells.extend(cells)  # the next part of a long row: the cells after the last part's
            grid.rows[-1].formulas |= formulas
            continue
        row_of[id(grid)] = row_no
        grid.rows.append(GridRow(span, cells, formulas))
    return list(by_sheet.values())


_COLS_RE = re.compile(r";cols=(\d+)-\d+")


def _csv_rows(spans: Sequence[WorkspaceSpan]) -> list[GridRow]:
    """CSV row spans as grid rows; a long row stored as ``row=N;cols=A-B`` parts is one row again, each
    cell keeping its column and the part span that holds it."""
    rows: list[GridRow] = []
    current = ""
    for span in spans:
        m = _COLS_RE.search(span.locator)
        first = int(m.group(1)) - 1 if m else 0
        cells = [Cell(t, first + i, span=span) for i, t in enumerate(_split_cells(span.text))]
        row_key = span.locator.split(";", 1)[0]
        if m and rows and row_key == current and first > 0:
            rows[-1].cells.extend(cells)
        else:
            rows.append(GridRow(span, cells))
        current = row_key
    return rows


def _line_kind(line: str) -> str:
    stripped = line.strip()
    if not stripped:
        return "blank"
    if is_period_label(stripped):
        return "period"
    if _is_value(stripped):
        return "value"
    return "text"


def _horizontal_row(line: str) -> list[str] | None:
    """ "Revenue  8,425  9,115" -> ["Revenue", "8,425", "9,115"], or None when the line is not such a row."""
    figures = [f for f in find_figures(line) if not any(s <= f.start < e for _, s, e in find_periods(line))]
    if not figures:
        return None
    label = line[: figures[0].start].strip()
    gaps = [line[a.end : b.start] for a, b in zip(figures, figures[1:], strict=False)] + [
        line[figures[-1].end :]
    ]
    if not re.search(r"[A-Za-z]", label) or any(g.strip(" |") for g in gaps):
        return None
    return [label] + [f.text for f in figures]


def _horizontal_header(line: str) -> list[str] | None:
    """ "Segment   Q1 2024   Q2 2024" -> ["Segment", "Q1 2024", "Q2 2024"], or None."""
    periods = find_periods(line)
    if len(periods) < 2 or _bare_figures(line):
        return None
    label = line[: periods[0][1]].strip()
    between = [line[a[2] : b[1]] for a, b in zip(periods, periods[1:], strict=False)] + [
        line[periods[-1][2] :]
    ]
    if any(g.strip(" |") for g in between) or len(label.split()) > 4:
        return None
    return [label] + [line[s:e] for _, s, e in periods]


def _text_grids(span: WorkspaceSpan) -> tuple[list[Grid], list[str]]:
    """Tables inside page / slide / section text, and the lines left over as prose."""
    lines = span.text.splitlines()
    kinds = [_line_kind(line) for line in lines]
    grids: list[Grid] = []
    prose: list[str] = []
    current: Grid | None = None
    heading = ""
    i = 0

    def add_row(cells: list[str]) -> None:
        nonlocal current
        if current is None:
            current = Grid(context=[heading] if heading else [], from_text=True)
            grids.append(current)
        current.rows.append(GridRow(span, [Cell(t, c) for c, t in enumerate(cells)]))

    while i < len(lines):
        line, kind = lines[i], kinds[i]
        if "\t" in line:
            add_row(line.split("\t"))
            i += 1
            continue
        if kind in ("text", "period"):
            j = i + 1
            run_kind = kinds[j] if j < len(kinds) else ""
            while (
                j < len(lines)
                and kinds[j] == run_kind
                and run_kind in ("value", "period")
                and "\t" not in lines[j]
            ):
                j += 1
            run = [lines[k].strip() for k in range(i + 1, j)]
            if kind == "period" and run_kind == "period":  # a header of periods with no corner label
                add_row(["", line.strip(), *run])
                i = j
                continue
            short_header = run_kind == "period" and len(line.split()) <= 3
            if (
                kind == "text"
                and run
                and (run_kind == "value" or len(run) >= 2 or short_header)
                and len(line.split()) <= 8
            ):
                add_row([line.strip(), *run])
                i = j
                continue
            header = _horizontal_header(line) if kind == "text" else None
            if header is not None:
                current = None  # a header line starts a new table
                add_row(header)
                i += 1
                continue
            horizontal = _horizontal_row(line) if kind == "text" else None
            if horizontal is not None and len(line) < 120:
                add_row(horizontal)
                i += 1
                continue
        current = None
        if kind == "text" and _is_heading(line):
            heading = line.strip()
        prose.append(line)
        i += 1
    return grids, prose


def _bare_figures(line: str) -> list[Figure]:
    """Figures that are not part of a period ("Q2 2024") or a leading section number ("2.")."""
    periods = find_periods(line)
    return [
        f
        for f in find_figures(line)
        if not any(s < f.end and f.start < e for _, s, e in periods)
        and not (f.start == len(line) - len(line.lstrip()) and re.match(r"\s*\d+(\.\d+)*\.?\s", line))
    ]


def _is_heading(line: str) -> bool:
    """A short line without figures or a sentence end: a title for the table or text below it."""
    stripped = line.strip()
    return (
        0 < len(stripped.split()) <= 10
        and not _bare_figures(stripped)
        and not stripped.endswith((".", ",", ";", ":"))
    )


def _file_context(spans: Sequence[WorkspaceSpan]) -> str:
    """Sentences that state the file's units ("All figures ... in EUR thousand")."""
    out = []
    for span in spans:
        for sentence in re.split(r"(?<=[.!?])\s+", span.text):
            if re.search(r"\b(figures|amounts|stated|expressed|unless)\b", sentence, re.I) and (
                scale_of(sentence) != 1.0 or unit_of(sentence)
            ):
                out.append(sentence.strip())
    return " ".join(out)


# ---- grids -> facts ---------------------------------------------------------------------------


def _measure(text: str) -> tuple[str, str] | None:
    """(canonical measure, the words around it) for the last measure word in ``text``."""
    matches = list(_MEASURE_RE.finditer(text.replace("_", " ")))
    if not matches:
        return None
    m = matches[-1]
    rest = (text.replace("_", " ")[: m.start()] + " " + text.replace("_", " ")[m.end() :]).strip(" -:()")
    return MEASURES[m.group(1).lower()], rest


_BAND_RE = re.compile(r"^[^\w\s]?\s*\d[\d,.\s]*\s*(?:-|–|—|to)\s*[^\w\s]?\s*\d[\d,.\s]*$")


@lru_cache(maxsize=65536)
def _entity(subject: str) -> str | None:
    if _BAND_RE.match(subject.strip()):
        return subject.strip()  # a band names its row: "£50,000 - £54,999", "195000 - 199999"
    cleaned = re.sub(r"\b(eur|usd|gbp|k|thousands?|millions?)\b", " ", subject, flags=re.I)
    cleaned = re.sub(r"\s+", " ", re.sub(r"[^\w&/ ]+", " ", cleaned)).strip()
    if metric_key(cleaned) in _GROUP_WORDS or not re.search(r"[A-Za-z]", cleaned):
        return None
    return cleaned


def _statement(metric: str, entity: str | None, period: str | None, value: str, span: WorkspaceSpan) -> str:
    who = f" of {entity}" if entity else ""
    when = f" for {period}" if period else ""
    return f"{metric.capitalize()}{who}{when} is {value} ({span.path}, {span.locator})"


def _full_amount(figure: Figure) -> bool:
    """A money figure printed with its currency sign to the unit ("$2,200,000,000"): a chart axis or a
    table's "in millions" does not apply to it (a scaled column prints "2,200", not "$2,200,000,000")."""
    return (figure.unit is not None and figure.unit != "%" and figure.text.lstrip("(-−").startswith(
        tuple("$€£¥")) and abs(figure.number) >= 1e6 and not figure.scaled)


def _make_fact(
    span: WorkspaceSpan,
    figure: Figure,
    metric: str,
    entity: str | None,
    period: str | None,
    unit: str | None,
    scale: float,
) -> FactRow:
    unit = figure.unit or figure.measure or unit
    if unit == "%" or _full_amount(figure):
        scale = 1.0
    elif figure.scaled or figure.range_scale != 1.0:
        scale = figure.range_scale  # "1.2 million" or "$5" of "$5–7 million" carries its own scale
    return FactRow(
        fact_id=fact_id(span.span_id, figure.text, metric, period, entity, NAME),
        span_id=span.span_id,
        statement=_statement(metric, entity, period, figure.text, span),
        value=figure.text,
        value_num=figure.number * scale,
        unit=unit,
        scale=scale,
        entity=entity,
        metric=metric,
        period=period,
        extractor=NAME,
    )


def _code_columns(header: dict[int, str]) -> set[int]:
    """Columns headed by questionnaire codes, when the header is a questionnaire's: some code goes past
    Q4 or carries a sub-item suffix, so "Q1".."Q4" there are questions, not quarters."""
    coded = {col: h for col, h in header.items() if _CODE_HEADER_RE.match(h)}
    questionnaire = any(not h[1:].isdigit() or int(h[1:]) > 4 for h in coded.values())
    return set(coded) if questionnaire else set()


def _restates_header(texts: Sequence[Cell], header: dict[int, str]) -> bool:
    """A value-less row inside a sheet's records starts a new table only when it is a full header row
    (as many cells as the current header, none of them a number in scientific notation); a record whose
    figure is withheld has fewer cells and must not become the columns' names."""
    named = {h for h in header.values() if h}
    cells = [c.text.strip() for c in texts]
    if len(cells) < 2 or len(cells) < len(named):
        return False
    if 2 * len(named & set(cells)) >= len(named):
        return True  # the same header repeated (a page break in an export)
    # Otherwise a new header has no figure-like cell: "2082" under "CY 2013 Revenues" is an amount that
    # happens to read as a year, and a figure stored as text in scientific notation is a figure.
    return not any(is_scientific(t) or is_period_label(t) or t.isdigit() for t in cells)


@lru_cache(maxsize=65536)
def _head_periods(head: str) -> tuple[str | None, str | None]:
    """A header's period when the header is one ("2014", "Q2 2024"), and the one it names beside a measure."""
    return (period_of(head) if is_period_label(head) else None), _one_period(head)


def _one_period(head: str) -> str | None:
    """The period a header names beside its measure ("CY 2013 Revenues" -> 2013), when it names one."""
    periods = find_periods(head)
    return periods[0][0] if len(periods) == 1 else None


def _plain_integer(figure: Figure) -> bool:
    """A figure printed as bare digits: no unit, no grouping, no decimals, no sign or scale word."""
    return not _formatted(figure) and figure.text.strip().isdigit()


_URL_RE = re.compile(r"^(?:https?://|www\.|mailto:)|@\w+\.\w", re.I)
_COUNTED_HEADER_RE = re.compile(r"count|total|sum|number of|amount|\bno\. of", re.I)


@dataclass(frozen=True)
class _Columns:
    """What a real table's columns hold, judged from their values down the table (not the file's name)."""

    keys: frozenset[int]  # running numbers, steps, flags, codes, identifiers: never quantities
    unnamed: frozenset[int]  # one value in every row, a URL or e-mail: these cells never name a row


def _columns(grid: Grid) -> _Columns:
    """Profile a real table's columns. A key column is:
    - a running number or step ("1, 2, 3, 1, 2": counting from 0 or 1, each value one more than the last
      or a restart);
    - a 0/1 flag, or a small code ("0".."4" in five or more rows, five values at most), unless its header
      says it counts or measures something ("EmployeeCount", "Bonuses");
    - an identifier (bare integers, all different, and zero-padded or all of one length of 6+ digits:
      NPIs, licence and case numbers).
    A column with the same text in every row (the organisation the export is about) or holding links names
    no row. The values are read in row order; a column needs three values (a flag or code five)."""
    if grid.from_text:
        return _Columns(frozenset(), frozenset())
    header: dict[int, str] = {}
    values: dict[int, list[Figure]] = defaultdict(list)
    texts: dict[int, list[str]] = defaultdict(list)
    for row in grid.rows:
        cells = [c for c in row.cells if c.text.strip()]
        figures = {c.col: f for c in cells if (f := parse_figure(c.text)) is not None}
        if not figures and not values and len(cells) >= 2:
            header = {c.col: c.text.strip() for c in cells}
            continue
        for c in cells:
            if c.col in figures:
                values[c.col].append(figures[c.col])
            else:
                texts[c.col].append(c.text.strip())
    keys: set[int] = set()
    for col, column in values.items():
        if len(column) < 3 or not all(_plain_integer(f) for f in column):
            continue
        numbers = [int(f.number) for f in column]
        printed = [f.text.strip() for f in column]
        steps = list(zip(numbers, numbers[1:], strict=False))
        running = sum(b == a + 1 for a, b in steps)
        restarts = sum(b in (0, 1) and b != a + 1 for a, b in steps)
        head = header.get(col, "").replace("_", " ")
        counted = bool(_MEASURE_RE.search(head) or _COUNTED_HEADER_RE.search(head))
        small = 0 <= min(numbers) <= max(numbers) <= 9
        counting = min(numbers) <= 1 and max(numbers) < 10_000
        if running >= 2 and running + restarts >= 0.8 * len(steps) and counting:
            keys.add(col)
        elif not counted and len(column) >= 5 and len(set(numbers)) <= 5 and small:
            keys.add(col)
        elif len(set(printed)) == len(printed) and (
            any(t.startswith("0") and len(t) > 1 for t in printed)
            or (len({len(t) for t in printed}) == 1 and len(printed[0]) >= 6)
        ):
            keys.add(col)
    unnamed = {
        col for col, words in texts.items()
        if (len(words) >= 3 and len(set(words)) == 1) or all(_URL_RE.search(w) for w in words)
    }
    return _Columns(frozenset(keys), frozenset(unnamed))


def _grid_facts(
    grid: Grid, file_context: str, budget: int | None = None
) -> tuple[list[FactRow], list[DependsOnRow], int]:
    """Quantities of one table, the derive edges among them, and the number of data rows not read
    because the ``budget`` of facts ran out first. Key columns (running numbers, flags, identifiers:
    :func:`_columns`) are never read as quantities; cells that name no row (a constant, a link, a filler
    such as "NA") are left out of the row's label."""
    columns = _columns(grid)
    key_cols = columns.keys
    header: dict[int, str] = {}
    context = list(grid.context)
    placed: list[_Placed] = []
    formulas: dict[str, str] = {}
    data_index = 0
    codes: set[int] = set()
    dated: set[int] = set()  # columns whose header names its period ("CY 2013 Revenues")
    unread = 0
    for row in grid.rows:
        if budget is not None and len(placed) >= budget:
            unread += 1
            continue
        texts = [c for c in row.cells if c.text.strip()]
        # A bare integer under a header that already names its period ("CY 2013 Revenues") is an amount,
        # even one that reads as a year (2082).
        values = [
            c for c in texts
            if c.col not in key_cols and (_is_value(c.text) or (c.col in dated and c.text.strip().isdigit()))
        ]
        value_ids = {id(c) for c in values}
        if not values:
            if any(c.col in key_cols and _is_value(c.text) for c in texts):
                continue  # a record whose only figures are its keys (a step number, a flag, an id)
            if not grid.from_text and data_index and not _restates_header(texts, header):
                continue  # a record whose figure is withheld ("W") or a note between records
            if len(texts) >= 2:
                header = {c.col: c.text.strip() for c in row.cells}
                codes = _code_columns(header)
                dated = {col for col, h in header.items() if h and not is_period_label(h) and _one_period(h)}
            elif texts:
                context.append(texts[0].text.strip())
                if grid.from_text:  # in running text a title line starts another table; in a sheet,
                    header = {}  # a note row between records keeps the columns' header
            continue
        ctx_text = " ".join(context)
        ctx_periods = {p for p, _, _ in find_periods(ctx_text)}
        label_cells = [
            c for c in texts if id(c) not in value_ids and c.col < values[0].col and c.col not in key_cols
        ]
        row_period = next(
            (
                period_of(c.text)
                for c in texts
                if _is_period(c.text)
                and (not c.text.strip().isdigit() or _PERIOD_HEADER_RE.search(header.get(c.col, "")))
            ),
            None,
        )
        names = [c for c in label_cells if not _is_period(c.text)]
        naming = [c for c in names if c.col not in columns.unnamed and not is_filler(c.text)]
        names = naming or names
        label = names[0].text.strip() if names else ""
        # Further label cells name the entity only when their column does (a name, an office, a region);
        # under a header such as "Maturity Bracket" they are the row's attributes, not part of its name.
        extra = " ".join(
            c.text.strip()
            for c in names[1:]
            if not header.get(c.col) or _IDENTITY_HEADER_RE.search(header.get(c.col, ""))
        )
        total_row = is_total_label(label)
        data_index += 1
        # Every word of the row, for when the label alone names several rows' values (_unambiguous).
        full = " ".join(
            c.text.strip() for c in texts
            if id(c) not in value_ids and not _is_period(c.text) and c.col not in columns.unnamed
            and c.col not in key_cols and not is_filler(c.text)
        )
        for cell in values:
            figure = parse_figure(cell.text)
            if figure is None:
                continue
            formula = row.formulas.get(cell.address or "", "")
            if figure.number == 0 and formula:
                continue  # a formula showing 0 ("=C7", "=IFERROR(..,$F30,..)" over an empty cell): a template
            head = header.get(cell.col, "")
            if head and _ID_HEADER_RE.search(head.replace("_", " ")) and not _MEASURE_RE.search(
                head.replace("_", " ")
            ):
                continue
            if cell.col in codes:
                continue  # a column headed by a questionnaire code ("Q21B_3") names no measure
            headed = bool(head) and (
                is_period_label(head) or bool(_MEASURE_RE.search(head.replace("_", " ")))
            )
            if grid.from_text and (
                (not _formatted(figure) and not headed)
                or _TOC_RE.search((cell.span or row.span).text)
                or _PLACE_RE.search(label)
                or _REFERENCE_RE.search(label)
                or not label
            ):
                continue  # page numbers, ZIP codes and list counts in running text are not quantities
            if (
                not head
                and not _formatted(figure)
                and float(figure.number).is_integer()
                and 1900 <= figure.number <= 2100
            ):
                continue  # a bare year is a label
            head_period, named_period = _head_periods(head)
            # A sheet named by its period ("2020") dates every figure on it, whatever notes sit above it.
            sheet_period = period_of(grid.context[0]) if grid.sheet and grid.context and _is_period(
                grid.context[0]) else None
            only_ctx = sheet_period or (next(iter(ctx_periods)) if len(ctx_periods) == 1 else None)
            period = head_period or named_period or row_period or only_ctx
            found = None if head_period else _measure(head)
            if found is not None:  # the column names the measure: the row label names the entity
                metric, subject = found[0], f"{label} {extra}".strip()
            elif not grid.from_text and not head_period and metric_key(head) not in _GENERIC_HEADERS:
                # A real table's column header names what its cells measure, whatever the words.
                metric, subject = metric_key(head), f"{label} {extra}".strip()
            elif (in_label := _measure(label)) is not None:
                metric, subject = in_label[0], f"{in_label[1]} {extra}".strip()
            elif (in_ctx := _measure(ctx_text)) is not None:
                metric, subject = in_ctx[0], f"{label} {extra}".strip()
            elif not grid.from_text and (titled := _measure(_title_of(row.span.path))) is not None:
                # A record table whose value column says only "Total": the file says what is totalled.
                metric, subject = titled[0], f"{label} {extra}".strip()
            elif not grid.from_text and not head_period:
                metric, subject = metric_key(head) or "value", f"{label} {extra}".strip()
            else:
                base = label if metric_key(head) in _GENERIC_HEADERS or head_period else f"{label} {head}"
                metric, subject = metric_key(base) or "value", extra
            entity = None if total_row and not extra else _entity(subject)
            scale = scale_of(head) if scale_of(head) != 1.0 else scale_of(ctx_text)
            if scale == 1.0:
                scale = scale_of(file_context)
            if _full_amount(figure):
                scale = 1.0
            unit = unit_of(head) or unit_of(ctx_text) or unit_of(file_context)
            where = cell.span or row.span
            fact = _make_fact(where, figure, metric, entity, period, unit, scale)
            alt = (
                None
                if grid.from_text
                else _make_fact(where, figure, metric, _entity(full), period, unit, scale)
            )
            placed.append(_Placed(fact, figure, data_index, cell.col, period, total_row, cell.address, alt))
        formulas |= row.formulas
    placed = _unambiguous(placed)
    return [p.fact for p in placed], _derive_edges(placed, formulas), unread


def _title_of(path: str) -> str:
    """A file name as words: "federal_revenue_offshore_CY04.xlsx" -> "federal revenue offshore CY04"."""
    return re.sub(r"[_\-.]+", " ", PurePosixPath(path).stem)


def _unambiguous(placed: list[_Placed]) -> list[_Placed]:
    """Facts whose metric, entity and period name one value of their table.

    In a record table several rows often share the first label ("Gas (mcf), WY, 2011" for each county):
    such facts take the row's other words as their entity; those still ambiguous after that are dropped,
    since no reader could tell which value they mean.
    """

    def key(fact: FactRow) -> tuple[str | None, str | None, str | None]:
        return fact.metric, fact.entity, fact.period

    def clashing(items: Sequence[_Placed]) -> set[tuple[str | None, str | None, str | None]]:
        values: dict[tuple[str | None, str | None, str | None], set[str]] = defaultdict(set)
        for p in items:
            values[key(p.fact)].add(p.fact.value)
        return {k for k, v in values.items() if len(v) > 1}

    bad = clashing(placed)
    if not bad:
        return placed
    for p in placed:
        if key(p.fact) in bad and p.alt is not None:
            p.fact = p.alt
    still = clashing(placed)
    return [p for p in placed if key(p.fact) not in still]


def _adds_up(total: _Placed, parts: Sequence[_Placed]) -> bool:
    if len(parts) < 2:
        return False
    slack = total.figure.precision * total.fact.scale + sum(p.figure.precision * p.fact.scale for p in parts)
    got = sum(p.fact.value_num or 0.0 for p in parts)
    return abs((total.fact.value_num or 0.0) - got) <= slack + 1e-9


def _range_cells(ref: str) -> list[str]:
    m = re.fullmatch(r"\$?([A-Z]+)\$?(\d+):\$?([A-Z]+)\$?(\d+)", ref)
    if m is None:
        return [ref.replace("$", "")] if re.fullmatch(r"\$?[A-Z]+\$?\d+", ref) else []
    c1, r1, c2, r2 = _col_index(m.group(1)), int(m.group(2)), _col_index(m.group(3)), int(m.group(4))
    return [f"{_col_letters(c)}{r}" for c in range(c1, c2 + 1) for r in range(r1, r2 + 1)]


def _formula_refs(formula: str) -> list[str] | None:
    """Cells a pure sum formula adds ("=SUM(B3:B5)", "=B3+C3"), or None for anything else."""
    body = formula.strip().lstrip("=").replace(" ", "")
    if "!" in body:
        return None
    m = re.fullmatch(r"SUM\(([A-Z$0-9:,]+)\)", body, re.I)
    if m is not None:
        return [c for part in m.group(1).split(",") for c in _range_cells(part)]
    if re.fullmatch(r"\$?[A-Z]+\$?\d+(\+\$?[A-Z]+\$?\d+)+", body):
        return [c.replace("$", "") for c in body.split("+")]
    return None


def _derive_edges(placed: Sequence[_Placed], formulas: dict[str, str]) -> list[DependsOnRow]:
    edges: dict[tuple[str, str], DependsOnRow] = {}

    def link(total: _Placed, parts: Sequence[_Placed], how: str) -> None:
        for part in parts:
            key = (total.fact.fact_id, part.fact.fact_id)
            edges.setdefault(
                key,
                DependsOnRow(
                    src_fact_id=total.fact.fact_id,
                    dst_fact_id=part.fact.fact_id,
                    kind=DependencyKind.DERIVE,
                    note=f"{total.fact.value} = sum of {len(parts)} parts ({how})",
                ),
            )

    by_address = {p.address: p for p in placed if p.address}
    for address, formula in formulas.items():
        total = by_address.get(address)
        refs = _formula_refs(formula)
        if total is not None and refs:
            parts = [by_address[a] for a in refs if a in by_address]
            if len(parts) == len(refs) and _adds_up(total, parts):
                link(total, parts, f"formula {formula}")
    by_col: dict[int, list[_Placed]] = defaultdict(list)
    by_row: dict[int, list[_Placed]] = defaultdict(list)
    for p in placed:
        by_col[p.col].append(p)
        by_row[p.row].append(p)
    for column in by_col.values():  # a "Total" row: the rows above it since the previous total
        block: list[_Placed] = []
        for p in column:
            if p.total_row:
                if _adds_up(p, block):
                    link(p, block, "column total")
                block = []
            else:
                block.append(p)
    for row in by_row.values():  # a period column covering the others: H1 = Q1 + Q2, a year = its quarters
        for p in row:
            parts = [
                q for q in row if q is not p and p.period and q.period and period_contains(p.period, q.period)
            ]
            if _adds_up(p, parts):
                link(p, parts, f"{p.period} from its sub-periods")
    return list(edges.values())


# ---- prose ------------------------------------------------------------------------------------


def _subject_before(sentence: str, at: int) -> str | None:
    """The capitalised words right before a measure word ("Marine Electronics revenue"), as an entity."""
    words = sentence[:at].split()
    run: list[str] = []
    for word in reversed(words[-3:]):
        if not word[:1].isupper() or word.endswith((".", ",", ":", ";")):
            break
        run.insert(0, word)
    return _entity(" ".join(run)) if run else None


_BOUND_AFTER = re.compile(r"^[\sa-z]{0,20}$")


def _prose_facts(span: WorkspaceSpan, lines: Sequence[str], file_context: str) -> list[FactRow]:
    """Figures in sentences such as "Group revenue for Q2 2024 was EUR 9,115 thousand"."""
    blocks: list[list[str]] = [[]]
    for line in lines:
        if _is_heading(line) or not line.strip():
            blocks.append([])
        else:
            blocks[-1].append(line.strip())
    sentences = [s for block in blocks if block for s in re.split(r"(?<=[.!?])\s+(?=[A-Z])", " ".join(block))]
    facts: list[FactRow] = []
    for sentence in sentences:
        periods = find_periods(sentence)
        figures = [
            f
            for f in find_figures(sentence)
            if not any(s < f.end and f.start < e for _, s, e in periods)
            and (f.unit or f.measure or "," in f.text or f.scaled or f.range_scale != 1.0)
        ]
        first = _MEASURE_RE.search(sentence)
        subject_carry = _subject_before(sentence, first.start()) if first is not None else None
        for k, fig in enumerate(figures):
            # "$5–7 million": the far end of a range reads its context from before the near end
            near = k - 1 if k and fig.in_range and figures[k - 1].in_range else k
            lo = figures[near - 1].end if near else 0
            hi = figures[k + 1].start if k + 1 < len(figures) else len(sentence)
            after = [
                p for p in periods if fig.end <= p[1] < hi and _BOUND_AFTER.match(sentence[fig.end : p[1]])
            ]
            before = [p for p in periods if lo <= p[1] and p[2] <= fig.start]
            period = after[0][0] if after else before[-1][0] if before else None
            if fig.unit == "%":
                tail = _MEASURE_RE.match(sentence[fig.end :].strip())
                measures = [tail] if tail else []
            else:
                measures = []
            if not measures:
                measures = [m for m in _MEASURE_RE.finditer(sentence[: fig.start])][-1:]
            if not measures or period is None:
                continue
            m = measures[0]
            entity = _subject_before(sentence, m.start()) if m.start() else None
            entity = entity or subject_carry
            scale = scale_of(file_context)
            if fig.text not in span.text:  # the figure broke across lines: keep its digits, which did not
                core = bare_figure(fig.text)
                if core is not None and core.number:
                    if fig.scaled or fig.range_scale != 1.0:
                        scale = 1.0
                    scale *= fig.value / core.number if fig.unit != "%" else 1.0
                    fig = Figure(core.text, core.number, fig.unit, core.precision, measure=fig.measure)
            facts.append(
                _make_fact(
                    span, fig, MEASURES[m.group(1).lower()], entity, period, unit_of(file_context), scale
                )
            )
    return facts


def _table_text_facts(grid: Grid) -> list[FactRow]:
    """Definitions and statuses of a real table, read under its first header row."""
    if grid.from_text:
        return []
    out: list[FactRow] = []
    header: list[str] | None = None
    rows: list[tuple[WorkspaceSpan, list[str], str]] = []
    for row in grid.rows:
        texts = [c for c in row.cells if c.text.strip()]
        if header is None:
            if len(texts) >= 2 and not any(_is_value(c.text) for c in texts):
                width = max(c.col for c in row.cells) + 1
                header = [""] * width
                for c in row.cells:
                    header[c.col] = c.text.strip()
            continue
        width = max(len(header), max((c.col for c in row.cells), default=0) + 1)
        cells = [""] * width
        for c in row.cells:
            cells[c.col] = c.text
        rows.append((row.span, cells, row.span.locator))
    if header is not None and rows:
        out.extend(table_facts(header, rows))
    return out


_COUNT_MEASURES = frozenset({"employees", "headcount", "units", "volume", "production"})
_MONEY = frozenset({"USD", "EUR", "GBP", "JPY", "CHF", "CAD", "AUD", "CNY", "INR"})
_LEADING_FUNCTION_WORD = re.compile(r"^(?:by|of|to|in|on|at|for|from|with|and|or|the|a|an|as|than)\b", re.I)


_NOT_A_MEASURE = re.compile(r"(?:doc(?:ument)?\s+)?(?:version|revision|rev|release|schema version|edition)",
                            re.I)
_LONE_FIGURE = re.compile(r"^\s*[$€£¥]?\s*-?\d[\d,.]*\s*(?:%|[kKmMbB]n?)?\s*$")


def axis_ticks(text: str) -> set[str]:
    """Figures that are a chart axis's ticks: three or more lines in a row, each a lone figure, stepping by
    one equal amount ("$2,200,000,000" / "$2,000,000,000" / "$1,800,000,000"). They scale a picture; no
    one states them."""
    lines = text.splitlines()
    ticks: set[str] = set()
    run: list[tuple[str, float]] = []

    def close() -> None:
        if len(run) >= 3:
            steps = {round(b[1] - a[1], 6) for a, b in zip(run, run[1:], strict=False)}
            if len(steps) == 1 and 0 not in steps:
                ticks.update(t for t, _ in run)

    for line in lines:
        figures = find_figures(line) if _LONE_FIGURE.match(line) else []
        if len(figures) == 1:
            run.append((figures[0].text, figures[0].value))
            continue
        close()
        run = []
    close()
    return ticks


def _not_ticks(facts: Sequence[FactRow], spans: Sequence[WorkspaceSpan]) -> list[FactRow]:
    """The facts whose value is no chart tick of its span."""
    by_id = {s.span_id: s for s in spans}
    ticks: dict[str, set[str]] = {}
    out = []
    for f in facts:
        if f.kind == FactKind.QUANTITY and f.span_id in by_id:
            if f.span_id not in ticks:
                ticks[f.span_id] = axis_ticks(by_id[f.span_id].text)
            if f.value in ticks[f.span_id]:
                continue
        out.append(f)
    return out


def _plausible(facts: Sequence[FactRow]) -> list[FactRow]:
    """Quantities a reader could check, whatever the file: a metric made of words (not "65 000", not "by the
    total pay bill") and a count (employees, headcount) that is no money amount."""
    out: list[FactRow] = []
    for f in facts:
        if f.kind == FactKind.QUANTITY:
            metric = f.metric or ""
            if not re.search(r"[^\W\d_]", metric) or _LEADING_FUNCTION_WORD.match(metric):
                continue
            if _NOT_A_MEASURE.fullmatch(metric):
                continue  # "version: 1.1" names a release, it measures nothing
            if metric in _COUNT_MEASURES and f.unit in _MONEY:
                continue  # "Employees ... is £17,364": a pay point, not a headcount
        out.append(f)
    return out


def _one_value_each(facts: Sequence[FactRow]) -> list[FactRow]:
    """Quantities read from tables guessed in running text whose metric, entity and period name one value
    in their span: an org chart's "Max salary £89,785" beside "Max salary £64,370", with no post named,
    could be either, so neither is kept."""
    values: dict[tuple[str, str | None, str | None, str | None], set[str]] = defaultdict(set)
    for f in facts:
        values[(f.span_id, f.metric, f.entity, f.period)].add(f.value)
    return [f for f in facts if len(values[(f.span_id, f.metric, f.entity, f.period)]) == 1]


# ---- the extractor -------------------------------------------------------------------------------


class RuleBasedExtractor:
    """Tables and simple sentences, no model. Output is labelled ``extractor="rule-based"``.

    ``max_table_facts`` caps the quantities read from one file's tables: the rows after it are counted
    on ``Extraction.capped``, not read (in file order, so two versions of a table keep the same rows).
    """

    name = NAME

    def __init__(self, max_table_facts: int = 20_000) -> None:
        self.max_table_facts = max_table_facts

    def extract_with_edges(self, spans: Sequence[WorkspaceSpan]) -> tuple[Extraction, list[DependsOnRow]]:
        """Facts (verified against their spans) plus the in-table derive edges between them."""
        by_file: dict[str, list[WorkspaceSpan]] = defaultdict(list)
        for span in spans:
            by_file[span.file_sha256].append(span)
        facts: list[FactRow] = []
        edges: list[DependsOnRow] = []
        capped: dict[str, int] = {}
        guessed: list[FactRow] = []  # quantities of tables guessed in page, slide or section text
        for file_spans in by_file.values():
            file_spans.sort(key=lambda s: s.ordinal)
            context = _file_context(file_spans)
            grids: list[Grid] = _sheet_grids([s for s in file_spans if s.locator.startswith("sheet=")])
            csv_rows = [s for s in file_spans if s.locator.startswith("row=")]
            if csv_rows:
                grids.append(Grid(rows=_csv_rows(csv_rows)))
            facts.extend(prose_facts([s for s in file_spans if not s.locator.startswith(("sheet=", "row="))]))
            for span in file_spans:
                if span.locator.startswith(("sheet=", "row=")):
                    continue
                if span.locator.startswith("table="):
                    grids.append(
                        Grid(
                            rows=[
                                GridRow(span, [Cell(t, i) for i, t in enumerate(_split_cells(line))])
                                for line in span.text.splitlines()
                                if line.strip()
                            ]
                        )
                    )
                    continue
                text_grids, prose = _text_grids(span)
                grids.extend(text_grids)
                facts.extend(_prose_facts(span, prose, context))
            budget, unread = self.max_table_facts, 0
            for grid in grids:
                facts.extend(_table_text_facts(grid))
                grid_facts, grid_edges, skipped = _grid_facts(grid, context, budget)
                facts.extend(grid_facts if not grid.from_text else ())
                guessed.extend(grid_facts if grid.from_text else ())
                edges.extend(grid_edges)
                budget -= len(grid_facts)
                unread += skipped
            if unread:
                capped[file_spans[0].path] = unread
        facts.extend(_one_value_each(guessed))
        extraction = verify(_not_ticks(_plausible(facts), spans), spans)
        extraction.capped = capped
        kept = {f.fact_id for f in extraction.facts}
        return extraction, [e for e in edges if e.src_fact_id in kept and e.dst_fact_id in kept]

    def extract(self, spans: Sequence[WorkspaceSpan]) -> Extraction:
        return self.extract_with_edges(spans)[0]

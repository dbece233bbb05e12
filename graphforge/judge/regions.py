"""Locate what a criterion points at inside a deliverable: values, lines, citations, with footprints."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePosixPath

from graphforge.figures.numbers import find_numbers
from graphforge.judge.documents import Document, Report, Section, Workbook, norm_key
from graphforge.judge.formula import cell_number
from graphforge.judge.locations import Location, expand_range, split_ref

# A footprint item is (deliverable name, sheet or section heading, cell or line index, WHOLE or TITLE).
Item = tuple[str, str, str]
Footprint = frozenset[Item]
WHOLE = "*"  # the whole sheet or section: overlaps everything in it
TITLE = "title"  # the sheet's name or the section's heading only: overlaps only itself and WHOLE


def is_part(item: Item) -> bool:
    """True for a cell or a line; False for the pseudo items WHOLE and TITLE."""
    return item[2] not in (WHOLE, TITLE)


def overlaps(a: Footprint, b: Footprint) -> bool:
    """True when two footprints share a cell / line, or one covers a whole sheet / section of the other."""
    for d, container, item in a:
        for d2, container2, item2 in b:
            if (
                d == d2
                and container.lower() == container2.lower()
                and (item == item2 or "*" in (item, item2))
            ):
                return True
    return False


@dataclass(frozen=True)
class Found:
    """A value found in a deliverable, where, and which cells/lines it rests on."""

    value: float | None
    text: str
    where: str
    footprint: Footprint
    error: str = ""


@dataclass(frozen=True)
class Line:
    text: str
    where: str
    footprint: Footprint


def _row_of(ref: str) -> int:
    return int(re.sub(r"[^0-9]", "", ref) or 0)


def _col_of(ref: str) -> str:
    return re.sub(r"[0-9]", "", ref)


def find_values(doc: Document, loc: Location, name: str, topic: str = "") -> list[Found]:
    """Every candidate value at a location (one for a single cell, several for ranges, sections, labels).

    In a report section without a label, only the numeric lines that best match ``topic`` (the criterion's
    requirement) count: a figure repeated in a narrative elsewhere must not stand in for the stated one.
    """
    if isinstance(doc, Workbook):
        return _workbook_values(doc, loc, name)
    found: list[Found] = []
    region = lines(doc, loc, name)
    if not loc.label and topic:
        region = best_lines(region, topic)
    for line in region:
        if loc.label and norm_key(loc.label) not in norm_key(line.text):
            continue
        text = line.text
        if loc.label:  # only what follows the label on its line
            idx = text.lower().find(loc.label.lower())
            text = text[idx + len(loc.label):] if idx >= 0 else text
        for value, _, _ in find_numbers(text):
            found.append(Found(value, text.strip(), line.where, line.footprint))
    return found


_WORD_RE = re.compile(r"[a-z][a-z]+")


def best_lines(region: list[Line], topic: str) -> list[Line]:
    """The numeric lines with the highest word overlap (Jaccard) with the topic; all of them on a tie."""
    want = set(_WORD_RE.findall(topic.lower()))
    numeric = [line for line in region if find_numbers(line.text)]
    if not want or not numeric:
        return numeric
    def score(line: Line) -> float:
        words = set(_WORD_RE.findall(line.text.lower()))
        return len(words & want) / len(words | want) if words | want else 0.0
    best = max(score(line) for line in numeric)
    return [line for line in numeric if score(line) == best]


def _workbook_values(doc: Workbook, loc: Location, name: str) -> list[Found]:
    ev = doc.evaluator
    if loc.sheet is not None and ev.sheet_name(loc.sheet) is None:
        return [Found(None, "", f"{loc.sheet}", frozenset({(name, loc.sheet, "*")}),
                      f"sheet {loc.sheet!r} does not exist")]
    sheets = [ev.sheet_name(loc.sheet) or loc.sheet] if loc.sheet is not None else list(doc.order)
    out: list[Found] = []
    for sheet in sheets:
        cells = list(loc.cells) or sorted(doc.sheets[sheet], key=lambda c: (_row_of(c), len(c), c))
        if loc.label:
            cells = _right_of_label(doc, sheet, loc.label, cells)
        for cell in cells:
            result = ev.evaluate(sheet, cell)
            footprint = frozenset((name, s, c) for s, c in result.precedents | {(sheet, cell)})
            value = result.value if isinstance(result.value, float) else cell_number(result.value)
            if loc.cells or value is not None:
                text = "" if result.value is None else str(result.value)
                out.append(Found(value, text, f"{sheet}!{cell}", footprint, result.error))
    return out


def _right_of_label(doc: Workbook, sheet: str, label: str, cells: list[str]) -> list[str]:
    data = doc.sheets[sheet]
    want = norm_key(label)
    label_cols = {c for c, d in data.items() if isinstance(d.value, str) and want in norm_key(d.value)}
    rows = {_row_of(c) for c in label_cols}
    return [c for c in cells if _row_of(c) in rows and c not in label_cols]


def lines(doc: Document, loc: Location, name: str) -> list[Line]:
    """The text lines of a location: rows of sheet cells, or lines of a report section."""
    if isinstance(doc, Workbook):
        ev = doc.evaluator
        sheets = [ev.sheet_name(loc.sheet)] if loc.sheet is not None else list(doc.order)
        return [line for sheet in sheets if sheet is not None
                for line in sheet_lines(doc, sheet, name, loc.cells)]
    if loc.section is not None:
        section = doc.section(loc.section)
        sections = [section] if section is not None else []
    else:
        sections = list(doc.sections)
    return [line for section in sections for line in section_lines(section, name)]


def section_lines(section: Section, name: str) -> list[Line]:
    """The non-blank lines of one report section, each with its line index as footprint."""
    return [Line(text, f"section {section.heading!r} line {i + 1}",
                 frozenset({(name, section.heading, str(i))}))
            for i, text in enumerate(section.text.splitlines()) if text.strip()]


def sheet_lines(doc: Workbook, sheet: str, name: str, cells: tuple[str, ...] = ()) -> list[Line]:
    """The rows of one sheet (or of some of its cells), cells joined by tabs in column order."""
    data = doc.sheets[sheet]
    keys = [c for c in cells if c in data] if cells else list(data)
    rows: dict[int, list[str]] = {}
    for key in keys:
        rows.setdefault(_row_of(key), []).append(key)
    out: list[Line] = []
    for row, row_cells in sorted(rows.items()):
        row_cells.sort(key=lambda c: (len(_col_of(c)), _col_of(c)))
        text = "\t".join(_cell_text(doc, sheet, c) for c in row_cells)
        out.append(Line(text, f"{sheet} row {row}", frozenset((name, sheet, c) for c in row_cells)))
    return out


def _cell_text(doc: Workbook, sheet: str, cell: str) -> str:
    data = doc.sheets[sheet][cell]
    if data.formula is not None:
        return data.formula if data.value is None else str(data.value)
    return "" if data.value is None else str(data.value)


def section_exists(doc: Report, heading: str) -> bool:
    return doc.section(heading) is not None


# ---- citations -------------------------------------------------------------------------------------------

# A file name the workspace does not hold (a fabricated citation): no spaces or commas, which separate names
# in prose (real names with any characters are found first, literally, by ``find_file_names``).
FILE_TOKEN_RE = re.compile(
    r"(?<![\w/.-])([\w][\w./\\()'&-]*\."
    r"(?:pdf|xlsx|xlsm|xls|docx|doc|pptx|ppt|csv|tsv|html?|md|txt|json))(?![\w])",
    re.IGNORECASE,
)
SHEET_REF_RE = re.compile(r"(?:sheet\s*[=:]\s*)?('(?:[^']|'')+'|[A-Za-z_][\w .-]*?)!(\$?[A-Za-z]{1,3}\$?\d+"
                          r"(?::\$?[A-Za-z]{1,3}\$?\d+)?)")
KEYED_LOCATOR_RE = re.compile(r"\b(page|p\.|pp\.|para|paragraph|row|section|slide|table)\s*[=:.]?\s*(\d+)",
                              re.IGNORECASE)
_KEY_ALIASES = {"p.": "page", "pp.": "page", "paragraph": "para"}


@dataclass(frozen=True)
class Citation:
    token: str  # the file name as written
    path: str | None  # the workspace path it resolves to, None when it names no workspace file
    locators: tuple[str, ...]  # normalised locators written right after it ("page=3", "sheet=q3!B4:F4")
    line: Line


def resolve_file(token: str, paths: list[str]) -> str | None:
    """The workspace path a cited file name denotes: full relative path, path suffix or unique basename."""
    want = token.strip().replace("\\", "/").lstrip("./").lower()
    lowered = {p.lower(): p for p in paths}
    if want in lowered:
        return lowered[want]
    suffix = [p for p in paths if p.lower().endswith("/" + want)]
    if len(suffix) == 1:
        return suffix[0]
    base = [p for p in paths if PurePosixPath(p).name.lower() == PurePosixPath(want).name]
    return base[0] if len(base) == 1 else None


@dataclass(frozen=True)
class FileName:
    """A file name in a text: where, as written, and the workspace path it denotes (None: no such file)."""

    start: int
    end: int
    token: str
    path: str | None


_EXTENSION_END_RE = re.compile(r"\.[A-Za-z0-9]{1,5}(?![\w])")


@lru_cache(maxsize=64)
def _known_names(paths: tuple[str, ...]) -> tuple[frozenset[str], tuple[int, ...]]:
    """The workspace's names (full paths and basenames, lower-cased) and their lengths, longest first."""
    names = frozenset(n.lower() for p in paths for n in (p, PurePosixPath(p).name) if n)
    return names, tuple(sorted({len(n) for n in names}, reverse=True))


def find_file_names(text: str, paths: list[str]) -> list[FileName]:
    """Every file name in a text, in order.

    The workspace's real names are found first, literally and with any characters (``Plan-(v2).docx``,
    ``Q3 results, final.xlsx``, ``O'Brien memo.docx``); then other file-like tokens (fabricated names).
    """
    slashed = text.replace("\\", "/")
    lowered = slashed.lower()
    names, lengths = _known_names(tuple(sorted(paths)))
    found: list[FileName] = []
    taken = 0  # names do not overlap: one ends before the next starts
    for m in _EXTENSION_END_RE.finditer(lowered):
        end = m.end()
        # The longest real name ending here that is not read out of a longer word or path.
        for size in lengths:
            start = end - size
            if start < taken or start < 0:
                continue
            if lowered[start:end] in names and (start == 0 or not re.match(r"[\w/.-]", lowered[start - 1])):
                found.append(FileName(start, end, text[start:end], resolve_file(slashed[start:end], paths)))
                taken = end
                break
    masked = list(slashed)
    for f in found:
        masked[f.start:f.end] = " " * (f.end - f.start)
    for m in FILE_TOKEN_RE.finditer("".join(masked)):
        found.append(FileName(m.start(1), m.end(1), m.group(1), resolve_file(m.group(1), paths)))
    return sorted(found, key=lambda f: f.start)


def strip_file_names(text: str, paths: list[str]) -> str:
    """The text with every file name blanked (a cited file name is not content)."""
    for f in reversed(find_file_names(text, paths)):
        text = text[:f.start] + " " + text[f.end:]
    return text


def citations(region: list[Line], paths: list[str], ignore: set[str]) -> list[Citation]:
    """File citations in some lines, each with the locators written between it and the next citation."""
    out: list[Citation] = []
    ignore_lower = {PurePosixPath(i).name.lower() for i in ignore}
    for line in region:
        names = [f for f in find_file_names(line.text, paths)
                 if PurePosixPath(f.token.replace("\\", "/")).name.lower() not in ignore_lower]
        for i, f in enumerate(names):
            tail = line.text[f.end: names[i + 1].start if i + 1 < len(names) else len(line.text)]
            out.append(Citation(f.token.strip(), f.path, locators_in(tail), line))
    return out


def locators_in(text: str) -> tuple[str, ...]:
    found: list[str] = []
    for m in SHEET_REF_RE.finditer(text):
        sheet = m.group(1).strip().strip("'").lower()
        found.append(f"sheet={sheet}!{m.group(2).replace('$', '').upper()}")
    for m in KEYED_LOCATOR_RE.finditer(text):
        key = m.group(1).lower()
        found.append(f"{_KEY_ALIASES.get(key, key)}={int(m.group(2))}")
    return tuple(found)


def _locator_part(anchor_locator: str, key: str) -> str | None:
    """The value of ``key`` in a span locator: "row=4;cols=1-4" has row 4, "page=3;part=2" page 3."""
    if anchor_locator.strip().lower().startswith("sheet="):  # a sheet name may hold ';'
        parts = [re.sub(r";part=\d+$", "", anchor_locator.strip())]
    else:
        parts = anchor_locator.split(";")
    for part in parts:
        k, _, v = part.partition("=")
        if k.strip().lower() == key:
            return v.strip()
    return None


def locator_matches(cited: str, anchor_locator: str) -> bool:
    """A cited locator points at the anchor's span: same page/para/row, or an overlapping cell range."""
    ckey, _, cvalue = cited.partition("=")
    value = _locator_part(anchor_locator, ckey)
    if value is None:
        return False
    if ckey != "sheet":
        return value.lower() == cvalue.strip().lower()
    sheet, cells = split_ref(value.strip())
    csheet, ccells = split_ref(cvalue)
    if sheet is None or csheet is None or sheet.lower() != csheet.lower():
        return False
    return bool(set(expand_range(cells)) & set(expand_range(ccells)))


def comparable(cited: str, anchor_locator: str) -> bool:
    """The anchor's locator has the cited locator's kind (a page for a page), so the two can be compared."""
    return _locator_part(anchor_locator, cited.partition("=")[0]) is not None


def at_place(citation: Citation, places: set[str]) -> bool:
    """No locator written, or one comparable with the holding spans' locators that points at one of them."""
    pairs = [(x, p) for x in citation.locators for p in places if p and comparable(x, p)]
    return not pairs or any(locator_matches(x, p) for x, p in pairs)

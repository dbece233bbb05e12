"""Figures as office files print them: the package's one number parser, periods, scales, units and labels."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

_CURRENCY_SYMBOLS = {"$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY"}
_CURRENCY_CODES = ("USD", "EUR", "GBP", "JPY", "CHF", "CAD", "AUD")
_SUFFIX_SCALE = {"k": 1e3, "thousand": 1e3, "m": 1e6, "mn": 1e6, "million": 1e6, "b": 1e9, "bn": 1e9,
                 "billion": 1e9, "tn": 1e12, "trillion": 1e12}
_MINUS = "-−–—"  # hyphen-minus, minus sign, en dash, em dash: office files print negatives with all four
_THIN_SPACES = "\u00a0\u202f\u2009'’"  # grouping marks of French, Swiss and typeset numbers

# The one number pattern of the package: a figure inside running text or a table cell. The left guard
# keeps "Q3" and "FY2024" from yielding "3" / "2024"; the digit alternatives try grouped thousands
# first (1,234,567 / 1.234.567,89 / 1 234 567 with thin or no-break spaces) so a grouped figure is one
# token; a lone "1,5" is a decimal comma, "1,500" a thousands separator. Scientific notation is read as
# spreadsheets and programs print it ("1.2E+06", "3.5e2", "1e-05"); an exponent without a sign needs a
# decimal mantissa, so a code such as "12E4" stays no figure.
_GUARD = r"(?<![\w.,/-])"
_BODY = (
    r"(?P<open>\()?"
    r"(?P<sign>[-−–—+])?"
    r"(?P<code>(?:USD|EUR|GBP|CHF|CAD|AUD|JPY)\s?)?"
    r"(?P<cur>[$€£¥])?\s?"
    r"(?P<open2>\()?(?P<sign2>[-−–—+])?"
    r"(?P<digits>\d+\.\d+[eE][-+]?\d{1,3}|\d+[eE][-+]\d{1,3}"
    r"|\d{1,3}(?:,\d{3})+(?:\.\d+)?"
    r"|\d{1,3}(?:\.\d{3})+,\d+"
    r"|\d{1,3}(?:[\u00a0\u202f\u2009'’]\d{3})+(?:[.,]\d+)?"
    r"|\d+(?:\.\d+)?|\.\d+)"
    r"(?P<suffix>\s?%|\s(?:percent|per\s?cent)\b|\s?(?:million|thousand|billion|trillion)\b|(?:bn|mn|tn|[kKmMbB])\b)?"
    r"(?P<post>\s?(?:[$€£¥]|(?:USD|EUR|GBP|CHF|CAD|AUD|JPY)\b))?"
    r"(?P<close>\))?"
    r"(?P<post2>\s?(?:[$€£¥]|(?:USD|EUR|GBP|CHF|CAD|AUD|JPY)\b))?"
    r"(?![\w])"
)
NUMBER_RE = re.compile(_GUARD + _BODY)
# The far end of a range ("$5–7 million", "10-20%", "between 5 and 7 million", "1-2 days"): the same
# figure pattern without the left guard, which refuses a hyphen before a figure so that "FY2023-24" and
# a ZIP+4 code yield no second number.
_BODY_RE = re.compile(_BODY)
_RANGE_JOIN_RE = re.compile(r"\s?(?:[-–—]|to\b|through\b|and\b)\s?", re.I)
_BETWEEN_RE = re.compile(r"\bbetween\s+$", re.I)
# Units of measure printed after a figure; read as the figure's measure, never as part of its text.
_MEASURE_RE = re.compile(
    r"\s?(?P<measure>kg|kilograms?|g|grams?|lbs?|pounds|t|tons?|tonnes?|km|kilometers?|kilometres?|mi|miles?"
    r"|ft|feet|sq\.?\s?ft|square\s+feet|acres?|hectares?|ha|l|liters?|litres?|gal|gallons?|kWh|MWh|GWh|kW|MW|GW"
    r"|hours?|hrs?|minutes?|mins?|days?|weeks?|months?|years?|FTEs?|employees|staff|people|persons|students"
    r"|participants|households|beds|units|sites|projects|cases)\b(?P<per>/\w+)?",
    re.I,
)
_MONTHS = {m: i for i, m in enumerate(
    ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], start=1)}
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4}
_PERIOD_RES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\bQ([1-4])\s*[-/ ]?\s*(?:FY\s*)?'?((?:19|20)?\d{2})\b", re.I), "q"),
    (re.compile(r"\b((?:19|20)\d{2})\s*[-/ ]?\s*Q([1-4])\b", re.I), "yq"),
    (re.compile(r"\b([1-4])Q\s*'?((?:19|20)?\d{2})\b", re.I), "q"),
    (re.compile(r"\bH([12])\s*[-/ ]?\s*(?:FY\s*)?((?:19|20)\d{2})\b", re.I), "h"),
    (re.compile(r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s*[-/ ]?\s*((?:19|20)\d{2})\b",
                re.I), "m"),
    (re.compile(r"\b((?:19|20)\d{2})-(0[1-9]|1[0-2])(?:-\d{2})?\b"), "ym"),
    (re.compile(r"\b(first|second|third|fourth)\s+quarter\s+of\s+((?:19|20)\d{2})\b", re.I), "qw"),
    (re.compile(r"\b(first|second)\s+half\s+of\s+((?:19|20)\d{2})\b", re.I), "hw"),
    (re.compile(r"\bFY\s*'?((?:19|20)?\d{2})\b", re.I), "fy"),
    (re.compile(r"\b((?:19|20)\d{2})\b"), "y"),
]
_SCALE_RES: list[tuple[re.Pattern[str], float]] = [
    (re.compile(r"\bin\s+thousands\b|\(\s*(?:[$€£]|USD|EUR|GBP)?\s*0{3}s?\s*\)|\b(?:USD|EUR|GBP)\s*(?:'000|000s|thousands?|k)\b"
                r"|[$€£]\s?000s?\b|\bthousands of\b", re.I), 1e3),
    (re.compile(r"\bin\s+millions\b|\(\s*(?:[$€£]|USD|EUR|GBP)?\s*m(?:illions?|n)?\s*\)|\b(?:USD|EUR|GBP)\s*(?:m|mn|millions?)\b"
                r"|\bmillions of\b", re.I), 1e6),
]


@dataclass(frozen=True)
class Figure:
    """A number as printed (``text``) and what it means."""

    text: str  # exactly as it appears in the source
    number: float  # signed, before any table scale; suffix scales ("1.2 million") are applied
    unit: str | None  # "USD", "EUR", "%", ... or None
    precision: float  # half of the last printed digit's place (rounding slack), suffix scale applied
    start: int = 0
    end: int = 0
    measure: str | None = None  # a unit of measure printed after it: "days", "kg", "km/h", "FTE"
    scaled: bool = False  # its own suffix ("1.2 million", "5bn") scaled it
    range_scale: float = 1.0  # the near end of a range takes the far end's scale: "$5" in "$5–7 million"
    in_range: bool = False  # one end of a range; the next figure (or the previous one) is the other

    @property
    def value(self) -> float:
        """What the figure means in its text: the number with the scale a range shares."""
        return self.number * self.range_scale


def _digits(digits: str) -> tuple[float, int]:
    """The value of a digit group as printed, and its number of decimals, whatever the locale."""
    for mark in _THIN_SPACES:
        digits = digits.replace(mark, "")
    if "," in digits and "." in digits:
        if digits.rfind(",") > digits.rfind("."):  # 1.234.567,89: dots group, the comma is decimal
            digits = digits.replace(".", "").replace(",", ".")
        else:
            digits = digits.replace(",", "")
    elif "," in digits:
        head, _, tail = digits.rpartition(",")
        # 1,234 / 12,345,678 group thousands; 1,5 / 12,25 are decimal commas
        digits = digits.replace(",", "") if len(tail) == 3 else head.replace(",", "") + "." + tail
    mantissa, _, exponent = digits.lower().partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return float(digits), decimals - int(exponent or 0)


def _id_list(digits: str) -> bool:
    """ "115,116,117": three or more comma-separated 3-digit numbers each one more than the last are a list
    of ids or items, not one number grouped in thousands (115 quintillion)."""
    groups = digits.split(",")
    if len(groups) < 3 or not all(len(g) == 3 and g.isdigit() for g in groups):
        return False
    numbers = [int(g) for g in groups]
    return all(b == a + 1 for a, b in zip(numbers, numbers[1:], strict=False))


def _figure(match: re.Match[str], base: int = 0) -> Figure | None:
    if _id_list(match.group("digits")):
        return None
    text = match.group(0)
    start, end = match.start(), match.end()
    opened, closed = bool(match.group("open") or match.group("open2")), bool(match.group("close"))
    if opened != closed:  # one stray parenthesis belongs to the prose, not to the figure
        if match.group("open"):
            text, start = text[1:], start + 1
        elif closed and not match.group("post2"):
            text, end = text[:-1], end - 1
        opened = closed = False
    number, decimals = _digits(match.group("digits"))
    precision = 0.5 * 10 ** -decimals
    suffix = (match.group("suffix") or "").strip().lower()
    unit: str | None = None
    if suffix == "%" or suffix.startswith("per"):
        unit, suffix = "%", "%"
    elif suffix:
        scale = _SUFFIX_SCALE.get(suffix, 1.0)
        number *= scale
        precision *= scale
    post = (match.group("post") or match.group("post2") or "").strip()
    if match.group("cur"):
        unit = _CURRENCY_SYMBOLS[match.group("cur")]
    elif match.group("code"):
        unit = match.group("code").strip()
    elif post:
        unit = _CURRENCY_SYMBOLS.get(post, post)
    sign = match.group("sign") or match.group("sign2")
    if opened or (sign and sign in _MINUS):
        number = -number
    measure = None
    if unit != "%" and not post and not closed and (after := _MEASURE_RE.match(match.string, match.end())):
        measure = after.group("measure") + (after.group("per") or "")
    return Figure(text.strip(), number, unit, precision, base + start, base + end, measure,
                  bool(suffix) and suffix != "%")


def _suffix_scale(match: re.Match[str]) -> float:
    return _SUFFIX_SCALE.get((match.group("suffix") or "").strip().lower(), 1.0)


def find_figures(text: str) -> list[Figure]:
    """Every figure in running text, left to right; the two ends of a range share scale, currency and unit.

    "$5–7 million" is $5 million to $7 million: the near end keeps its printed text and number and takes
    the far end's scale as ``range_scale``, so ``value`` is 5,000,000 while "$5" still parses to 5.
    """
    found = [(m, f) for m in NUMBER_RE.finditer(text) if (f := _figure(m)) is not None]
    out = [f for _, f in found]
    extra: list[Figure] = []
    for i, (near_match, near) in enumerate(found):
        join = _RANGE_JOIN_RE.match(text, near_match.end())
        if join is None or near_match.group("suffix") or near_match.group("close"):
            continue
        word = join.group(0).strip().lower()
        if word == "and" and not _BETWEEN_RE.search(text, 0, near.start):
            continue
        far_match = _BODY_RE.match(text, join.end())
        far = _figure(far_match) if far_match else None
        if far_match is None or far is None or far_match.group("sign") or far_match.group("open"):
            continue
        if not (far.scaled or far.unit or far.measure or near.unit):
            continue  # "2019-2021", "20503-0001", "pages 3-5": two numbers, not one quantity
        if near.unit and far.unit and near.unit != far.unit:
            continue
        out[i] = replace(near, unit=near.unit or far.unit, measure=near.measure or far.measure,
                         range_scale=_suffix_scale(far_match), in_range=True)
        far = replace(far, unit=far.unit or near.unit, measure=far.measure or near.measure, in_range=True)
        same = [j for j, (_, f) in enumerate(found) if f.start < far.end and far.start < f.end]
        if same:
            out[same[0]] = far if found[same[0]][1].start >= far.start else out[same[0]]
        elif word in "-–—":
            extra.append(far)  # the guard refused "20%" after "10-"
    return sorted(out + extra, key=lambda f: f.start)


def is_scientific(text: str) -> bool:
    """A cell holding one figure in scientific notation ("7.95807864051312E-13" stored as text)."""
    match = NUMBER_RE.fullmatch(text.strip())
    return match is not None and "e" in match.group("digits").lower()


def bare_figure(text: str) -> Figure | None:
    """The digits of the first figure in a text, without sign, currency, suffix or unit."""
    match = NUMBER_RE.search(text)
    return None if match is None else parse_figure(match.group("digits"))


def _cell_grouping(cell: str) -> str:
    """A whole cell may group with plain spaces ("1 234 567") or use a decimal comma ("12,5"): in running
    text both are ambiguous ("items 1,2 and 3"), so only a cell that is nothing else is read that way."""
    body = cell.lstrip("-−–—(+$€£¥").rstrip(")")
    if body[:3] in _CURRENCY_CODES:
        body = body[3:].lstrip("-−–—(+ ")
    groups = body.split(" ")
    run = 1 if groups[0].isdigit() and len(groups[0]) <= 3 else 0
    while run and run < len(groups) and len(groups[run]) >= 3 and groups[run][:3].isdigit() and (
            len(groups[run]) == 3 or groups[run][3] in ".,"):
        run += 1
    if run > 1:
        cell = cell.replace(" ".join(groups[:run]), "\u00a0".join(groups[:run]), 1)
    token = body.split(" ")[0].rstrip("%)")
    head, comma, tail = token.partition(",")
    if comma and head.isdigit() and tail.isdigit() and len(tail) in (1, 2):
        cell = cell.replace(token, f"{head}.{tail}", 1)
    return cell


def parse_figure(cell: str) -> Figure | None:
    """The figure a whole table cell holds, or None when the cell is not (only) a number."""
    stripped = cell.strip()
    if not stripped:
        return None
    match = NUMBER_RE.fullmatch(_cell_grouping(stripped))
    if match is None:
        # "USD 1,200" / "1,200 USD": a currency code on either side of an otherwise bare number
        for code in _CURRENCY_CODES:
            if stripped.upper().endswith(" " + code):
                inner = parse_figure(stripped[: -len(code) - 1])
                return None if inner is None else replace(inner, text=stripped, unit=code)
        return None
    figure = _figure(match)
    # The cell's own text, keeping what the figure knows of itself ("$190 million" is scaled already).
    return None if figure is None else replace(figure, text=cell.strip(), start=0, end=0)


def parse_value(text: str) -> float | None:
    """The signed number of a value text as stored on a Fact (suffix scales applied, table scale not)."""
    figure = parse_figure(text)
    return None if figure is None else figure.number


def parse_number(text: str) -> float | None:
    """The one number a text denotes ("$1,234.50", "(12)", "12.5%", "EUR 1.2 million"); None if none or many.

    The same reading as :func:`parse_value` for a value cell; inside a short phrase ("about 1,200 staff")
    the one figure it holds.
    """
    whole = parse_value(text)
    if whole is not None:
        return whole
    figures = find_figures(text)
    return figures[0].number if len(figures) == 1 else None


def find_numbers(text: str) -> list[tuple[float, int, int]]:
    """Every figure in a text as (value, start, end); years and list markers are kept (callers filter)."""
    return [(f.value, f.start, f.end) for f in find_figures(text)]


def close_enough(got: float, expected: float, rel_tol: float, abs_tol: float = 0.005) -> bool:
    """Equal within a relative tolerance, or within rounding to two decimals."""
    return abs(got - expected) <= max(rel_tol * abs(expected), abs_tol)


def matches_value(got: float, expected: float, rel_tol: float, percent: bool = False) -> bool:
    """Like close_enough; a percentage may also be written as a fraction (12.5 vs 0.125) or vice versa."""
    if close_enough(got, expected, rel_tol):
        return True
    if percent:
        return close_enough(got * 100, expected, rel_tol) or close_enough(got, expected * 100, rel_tol)
    return False


def _year(token: str) -> int:
    year = int(token)
    return year + 2000 if year < 100 else year


def find_periods(text: str) -> list[tuple[str, int, int]]:
    """Normalised periods in text with their spans: "2024-Q3", "2024-H1", "2024-09", "FY2024", "2024"."""
    found: list[tuple[str, int, int]] = []
    taken: list[tuple[int, int]] = []
    for pattern, kind in _PERIOD_RES:
        for m in pattern.finditer(text):
            if any(m.start() < e and s < m.end() for s, e in taken):
                continue
            if kind == "q":
                norm = f"{_year(m.group(2))}-Q{m.group(1)}"
            elif kind == "yq":
                norm = f"{m.group(1)}-Q{m.group(2)}"
            elif kind == "h":
                norm = f"{m.group(2)}-H{m.group(1)}"
            elif kind == "m":
                norm = f"{m.group(2)}-{_MONTHS[m.group(1).lower()[:3]]:02d}"
            elif kind == "ym":
                norm = f"{m.group(1)}-{m.group(2)}"
            elif kind in ("qw", "hw"):
                n = _ORDINALS[m.group(1).lower()]
                norm = f"{m.group(2)}-{'Q' if kind == 'qw' else 'H'}{n}"
            elif kind == "fy":
                norm = f"FY{_year(m.group(1))}"
            else:
                norm = m.group(1)
            found.append((norm, m.start(), m.end()))
            taken.append((m.start(), m.end()))
    return sorted(found, key=lambda p: p[1])


def period_of(text: str) -> str | None:
    """The period a short label names ("Q3 2024" -> "2024-Q3"), or None."""
    periods = find_periods(text)
    return periods[0][0] if len(periods) == 1 else None


def is_period_label(text: str) -> bool:
    """True when a cell is nothing but a period label (a column header such as "Q3 2024" or "FY2024")."""
    periods = find_periods(text)
    if len(periods) != 1:
        return False
    _, start, end = periods[0]
    rest = (text[:start] + text[end:]).strip(" \t-–:()/'").lower()
    return rest in {"", "actual", "actuals", "budget", "forecast", "ytd", "fy", "total", "restated"}


def scale_of(text: str) -> float:
    """The table scale a title or header announces ("in thousands" -> 1000), else 1."""
    text = text.replace("_", " ")
    for pattern, scale in _SCALE_RES:
        if pattern.search(text):
            return scale
    return 1.0


def unit_of(text: str) -> str | None:
    """A currency or percent unit a header names, or None."""
    for symbol, code in _CURRENCY_SYMBOLS.items():
        if symbol in text:
            return code
    upper = text.upper().replace("_", " ")
    for code in _CURRENCY_CODES:
        if re.search(rf"\b{code}\b", upper):
            return code
    if "%" in text or re.search(r"\bpercent\b", text, re.I):
        return "%"
    return None


_LABEL_NOISE = re.compile(r"\([^)]*\)|[^\w%&/ ]+")
_TOTAL_RE = re.compile(r"^\s*(?:grand\s+|sub-?\s*)?total\b|\btotal\s*$", re.I)


def metric_key(label: str) -> str:
    """Matching key of a metric label: lower case, no parentheticals or punctuation, no leading "total"."""
    key = re.sub(r"\s+", " ", _LABEL_NOISE.sub(" ", label.lower())).strip()
    key = re.sub(r"^(?:grand |sub ?)?total ", "", key)
    return re.sub(r" total$", "", key)


def is_total_label(label: str) -> bool:
    return bool(_TOTAL_RE.search(label))


def is_subtotal_label(label: str) -> bool:
    return bool(re.match(r"^\s*sub-?\s*total\b", label, re.I))


_QUARTER_MONTHS = {1: (1, 2, 3), 2: (4, 5, 6), 3: (7, 8, 9), 4: (10, 11, 12)}


def _months(period: str) -> tuple[int, frozenset[int]] | None:
    """A normalised period as (year, months it covers), or None."""
    m = re.fullmatch(r"(?:FY)?(\d{4})(?:-(Q[1-4]|H[12]|\d{2}))?", period)
    if m is None:
        return None
    year, part = int(m.group(1)), m.group(2)
    if part is None:
        return year, frozenset(range(1, 13))
    if part.startswith("Q"):
        return year, frozenset(_QUARTER_MONTHS[int(part[1])])
    if part.startswith("H"):
        return year, frozenset(range(1, 7) if part == "H1" else range(7, 13))
    return year, frozenset({int(part)})


def period_contains(outer: str, inner: str) -> bool:
    """True when ``outer`` strictly covers ``inner`` (2024-H1 covers 2024-Q2; a year covers its quarters)."""
    a, b = _months(outer), _months(inner)
    return a is not None and b is not None and a[0] == b[0] and b[1] < a[1]

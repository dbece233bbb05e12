"""Parse figures as office files print them: currency, percent, thousands separators, (negatives), scales."""

from __future__ import annotations

import re
from dataclasses import dataclass

_CURRENCY_SYMBOLS = {"$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY"}
_CURRENCY_CODES = ("USD", "EUR", "GBP", "JPY", "CHF", "CAD", "AUD")
_SUFFIX_SCALE = {"k": 1e3, "thousand": 1e3, "m": 1e6, "mn": 1e6, "million": 1e6, "b": 1e9, "bn": 1e9,
                 "billion": 1e9}

# One figure inside running text. The left guard keeps "Q3" and "FY2024" from yielding "3" / "2024";
# the digit alternatives try grouped thousands first so "1,234,567" is one token.
NUMBER_RE = re.compile(
    r"(?<![\w.,/-])"
    r"(?P<open>\()?"
    r"(?P<sign>[-−–+])?"
    r"(?P<code>(?:USD|EUR|GBP|CHF|CAD|AUD)\s?)?"
    r"(?P<cur>[$€£¥])?\s?"
    r"(?P<digits>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?P<suffix>\s?%|\s?(?:million|thousand|billion)\b|(?:bn|mn|[kKmMbB])\b)?"
    r"(?P<close>\))?"
    r"(?![\w])"
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


def _figure(match: re.Match[str], base: int = 0) -> Figure | None:
    text = match.group(0)
    start, end = match.start(), match.end()
    opened, closed = bool(match.group("open")), bool(match.group("close"))
    if opened != closed:  # one stray parenthesis belongs to the prose, not to the figure
        if opened:
            text, start = text[1:], start + 1
        else:
            text, end = text[:-1], end - 1
        opened = closed = False
    digits = match.group("digits")
    number = float(digits.replace(",", ""))
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    precision = 0.5 * 10 ** -decimals
    suffix = (match.group("suffix") or "").strip().lower()
    unit: str | None = None
    if suffix == "%":
        unit = "%"
    elif suffix:
        scale = _SUFFIX_SCALE.get(suffix, 1.0)
        number *= scale
        precision *= scale
    if match.group("cur"):
        unit = _CURRENCY_SYMBOLS[match.group("cur")]
    elif match.group("code"):
        unit = match.group("code").strip()
    sign = match.group("sign")
    if opened or (sign and sign in "-−–"):
        number = -number
    return Figure(text.strip(), number, unit, precision, base + start, base + end)


def find_figures(text: str) -> list[Figure]:
    """Every figure in running text, left to right."""
    return [f for m in NUMBER_RE.finditer(text) if (f := _figure(m)) is not None]


def parse_figure(cell: str) -> Figure | None:
    """The figure a whole table cell holds, or None when the cell is not (only) a number."""
    stripped = cell.strip()
    if not stripped:
        return None
    match = NUMBER_RE.fullmatch(stripped)
    if match is None:
        # "USD 1,200" / "1,200 USD": a currency code on either side of an otherwise bare number
        for code in _CURRENCY_CODES:
            if stripped.upper().endswith(" " + code):
                inner = parse_figure(stripped[: -len(code) - 1])
                return None if inner is None else Figure(stripped, inner.number, code, inner.precision)
        return None
    figure = _figure(match)
    return None if figure is None else Figure(stripped, figure.number, figure.unit, figure.precision)


def parse_value(text: str) -> float | None:
    """The signed number of a value text as stored on a Fact (suffix scales applied, table scale not)."""
    figure = parse_figure(text)
    return None if figure is None else figure.number


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

"""Numbers as office files write them: parse, find in text, compare with a tolerance."""

from __future__ import annotations

import re

# A number as people type it: optional sign or accounting parentheses, currency, thousands separators,
# decimals, an optional percent sign or magnitude suffix.
NUMBER_RE = re.compile(
    r"(?<![\w.])(?P<open>\()?\s*(?P<sign>[-+−])?\s*(?P<cur>[$€£¥])?\s*"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"(?:\s*(?P<pct>%)|\s?(?P<suffix>bn|mn|[kKmMbB])(?![A-Za-z]))?(?P<close>\))?"
)
_SUFFIX = {"k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6, "mn": 1e6, "b": 1e9, "B": 1e9, "bn": 1e9}


def parse_number(text: str) -> float | None:
    """The single number a value text denotes ("$1,234.50", "(12)", "12.5%", "1.2M"); None if none or many."""
    matches = list(NUMBER_RE.finditer(text.strip()))
    if len(matches) != 1:
        return None
    return _value(matches[0])


def find_numbers(text: str) -> list[tuple[float, int, int]]:
    """Every number in a text as (value, start, end); years and list markers are kept (callers filter)."""
    return [(v, m.start(), m.end()) for m in NUMBER_RE.finditer(text) if (v := _value(m)) is not None]


def _value(m: re.Match[str]) -> float | None:
    try:
        value = float(m.group("num").replace(",", ""))
    except ValueError:
        return None
    if m.group("suffix"):
        value *= _SUFFIX[m.group("suffix")]
    negative = m.group("sign") in ("-", "−") or (m.group("open") is not None and m.group("close") is not None)
    return -value if negative else value


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

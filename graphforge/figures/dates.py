"""Dates as office files print them ("July 13, 2017", "13 July 2017", "2017-07-13", "7/13/17") as ISO 8601."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

_MONTHS = {
    name: i
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sept", "sep"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
_MONTH = (
    r"(?P<{g}>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)

# One pattern per printed shape; the day-precision shapes come first so "July 13, 2017" is not read as
# "July 2017". Month-only dates ("June 2016") are kept with month precision.
DATE_RE = re.compile(
    r"(?<![\w/-])(?:"
    + _MONTH.format(g="m1")
    + r"\s+(?P<d1>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<y1>(?:19|20)\d{2})"
    + r"|(?P<d2>\d{1,2})(?:st|nd|rd|th)?\s+"
    + _MONTH.format(g="m2")
    + r",?\s+(?P<y2>(?:19|20)\d{2})"
    + r"|(?P<y3>(?:19|20)\d{2})-(?P<m3>0[1-9]|1[0-2])-(?P<d3>0[1-9]|[12]\d|3[01])"
    + r"|(?P<m4>0?[1-9]|1[0-2])/(?P<d4>0?[1-9]|[12]\d|3[01])/(?P<y4>(?:19|20)?\d{2})"
    + r"|"
    + _MONTH.format(g="m5")
    + r",?\s+(?P<y5>(?:19|20)\d{2})"
    + r")(?![\w/])",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class FoundDate:
    text: str  # exactly as printed
    iso: str  # "2017-07-13", or "2017-07" for a month
    start: int
    end: int

    @property
    def has_day(self) -> bool:
        return len(self.iso) == 10


def _month(token: str) -> int:
    key = token.lower().rstrip(".")
    return _MONTHS.get(key) or _MONTHS[key[:3]]


def _iso(m: re.Match[str]) -> str | None:
    try:
        if m.group("m1"):
            return date(int(m.group("y1")), _month(m.group("m1")), int(m.group("d1"))).isoformat()
        if m.group("m2"):
            return date(int(m.group("y2")), _month(m.group("m2")), int(m.group("d2"))).isoformat()
        if m.group("y3"):
            return date(int(m.group("y3")), int(m.group("m3")), int(m.group("d3"))).isoformat()
        if m.group("y4"):
            year = int(m.group("y4"))
            year = year + 2000 if year < 100 else year
            return date(year, int(m.group("m4")), int(m.group("d4"))).isoformat()
        return f"{int(m.group('y5')):04d}-{_month(m.group('m5')):02d}"
    except ValueError:  # "February 30, 2017" is not a date
        return None


def find_dates(text: str) -> list[FoundDate]:
    """Every date in a text, left to right."""
    out = []
    for m in DATE_RE.finditer(text):
        iso = _iso(m)
        if iso is not None:
            out.append(FoundDate(m.group(0), iso, m.start(), m.end()))
    return out


def parse_date(text: str) -> str | None:
    """The ISO form of the one date a text holds, or None."""
    found = find_dates(text)
    return found[0].iso if len(found) == 1 else None

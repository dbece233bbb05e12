"""Make Office zip packages (XLSX, DOCX, PPTX) byte-stable: fixed member times, core dates, cached values."""

from __future__ import annotations

import re
import zipfile
from collections.abc import Mapping
from pathlib import Path

FIXED_ZIP_TIME = (2024, 7, 15, 9, 0, 0)
FIXED_ISO = "2024-07-15T09:00:00Z"
_CORE_DATE_RE = re.compile(r"(<dcterms:(?:created|modified)[^>]*>)[^<]*(</dcterms:(?:created|modified)>)")


def normalize_package(path: Path, cached_values: Mapping[str, Mapping[str, float]] | None = None) -> None:
    """Rewrite ``path`` in place so the same content always gives the same bytes.

    Args:
        cached_values: for XLSX, ``{"xl/worksheets/sheet1.xml": {"B5": 8425.0}}``: values written into
            the ``<v>`` of formula cells, as Excel does when it saves (openpyxl leaves them empty, and
            readers that want values, ours included, need the cache).
    """
    with zipfile.ZipFile(path) as src:
        members = [(info.filename, src.read(info.filename)) for info in src.infolist()]
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as dst:
        for name, data in members:
            if name == "docProps/core.xml":
                data = _CORE_DATE_RE.sub(
                    lambda m: m.group(1) + FIXED_ISO + m.group(2), data.decode()
                ).encode()
            if cached_values and name in cached_values:
                data = _inject_cached_values(data.decode(), cached_values[name]).encode()
            info = zipfile.ZipInfo(name, date_time=FIXED_ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            dst.writestr(info, data)


def _inject_cached_values(xml: str, values: Mapping[str, float]) -> str:
    def fill(match: re.Match[str]) -> str:
        ref, formula = match.group(1), match.group(3)
        if ref not in values:
            return match.group(0)
        value = values[ref]
        text = str(int(value)) if float(value).is_integer() else repr(float(value))
        return f'<c r="{ref}"{match.group(2)}><f>{formula}</f><v>{text}</v></c>'

    # openpyxl writes formula cells as <c r="B5"><f>SUM(B2:B4)</f><v></v></c> (or <v/>).
    return re.sub(r'<c r="([A-Z]+[0-9]+)"([^>]*)><f>([^<]*)</f>(?:<v\s*/>|<v></v>)?</c>', fill, xml)

"""Text-like formats: CSV rows ("row=17"), HTML / Markdown / plain-text / JSON sections ("section=5")."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

from graphforge.models.workspace import SpanKind
from graphforge.parsers.base import ParsedSpan, ParseLimits, Refused, clip

_HEADING_RE = re.compile(r"^#{1,6}\s")
_FENCE_RE = re.compile(r"^\s*(```|~~~)")
_BLOCK_TAGS = (
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "p",
    "li",
    "pre",
    "blockquote",
    "tr",
    "dt",
    "dd",
    "caption",
    "figcaption",
    "td",
    "th",
)
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}


def read_text(path: Path) -> str:
    """Decode a text file: BOMs honoured, UTF-8 first, then Windows-1252, Latin-1 as the lossless fallback.

    Windows-1252 before Latin-1 because spreadsheet exports from Windows are the common non-UTF-8 case
    and Latin-1 turns their euro signs and curly quotes into C1 control characters ("\x80" for "€").
    """
    data = path.read_bytes()
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        # A damaged UTF-16 file (odd length, lone surrogate) still yields its readable text.
        return data.decode("utf-16", errors="replace")
    for encoding in ("utf-8-sig", "cp1252"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1")


def _check_spans(spans: list[ParsedSpan], limits: ParseLimits, what: str) -> None:
    if len(spans) > limits.max_spans:
        raise Refused(f"{what} has more than {limits.max_spans} spans (cap)")


def parse_csv(path: Path, limits: ParseLimits) -> tuple[list[ParsedSpan], int | None]:
    # The csv module refuses fields over 128 KiB by default; exports with long free-text or embedded
    # JSON columns have them. The file-size cap already bounds a field, and spans are clipped.
    csv.field_size_limit(max(csv.field_size_limit(), min(limits.max_file_bytes, 2**31 - 1)))
    text = read_text(path)
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(text[:65536], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    spans: list[ParsedSpan] = []
    try:
        for number, row in enumerate(csv.reader(io.StringIO(text, newline=""), dialect), start=1):
            if number > limits.max_rows:
                raise Refused(f"CSV has more than {limits.max_rows} rows (cap)")
            cells = [c.strip() for c in row]
            if any(cells):
                spans.append(
                    ParsedSpan(locator=f"row={number}", kind=SpanKind.ROW, text=clip("\t".join(cells)))
                )
    except csv.Error as exc:
        raise Refused(f"malformed CSV: {exc}") from exc
    return spans, None


def parse_markdown(path: Path, limits: ParseLimits) -> tuple[list[ParsedSpan], int | None]:
    sections: list[list[str]] = [[]]
    fenced = False
    for line in read_text(path).splitlines():
        if _FENCE_RE.match(line):
            fenced = not fenced
        # A heading outside a code fence opens a new section; headings stay with their section's text.
        if not fenced and _HEADING_RE.match(line) and any(s.strip() for s in sections[-1]):
            sections.append([])
        sections[-1].append(line)
    spans = _sections(["\n".join(s).strip() for s in sections])
    _check_spans(spans, limits, "Markdown file")
    return spans, None


def parse_text(path: Path, limits: ParseLimits) -> tuple[list[ParsedSpan], int | None]:
    blocks = re.split(r"\n\s*\n", read_text(path).replace("\r\n", "\n"))
    spans = _sections([b.strip() for b in blocks])
    _check_spans(spans, limits, "text file")
    return spans, None


def parse_json(path: Path, limits: ParseLimits) -> tuple[list[ParsedSpan], int | None]:
    try:
        data = json.loads(read_text(path))
    except ValueError as exc:
        raise Refused(f"malformed JSON: {exc}") from exc
    if isinstance(data, dict):
        parts = [json.dumps({k: v}, ensure_ascii=False, indent=1) for k, v in data.items()]
    elif isinstance(data, list):
        parts = [json.dumps(v, ensure_ascii=False, indent=1) for v in data]
    else:
        parts = [json.dumps(data, ensure_ascii=False)]
    spans = _sections(parts)
    _check_spans(spans, limits, "JSON file")
    return spans, None


def parse_html(path: Path, limits: ParseLimits) -> tuple[list[ParsedSpan], int | None]:
    from bs4 import BeautifulSoup, Tag

    data = path.read_bytes()
    try:
        markup: str | bytes = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        # Not UTF-8: bs4 honours the page's BOM or <meta charset> (windows-1251, Shift_JIS, ...) before
        # guessing; a UTF-8 page is taken as such even when its meta tag claims otherwise.
        markup = data
    # lxml's HTML parser never expands DTD entities, so entity bombs have no effect here.
    soup = BeautifulSoup(markup, "lxml")
    for tag in soup(["script", "style", "noscript", "template", "head"]):
        tag.decompose()
    sections: list[list[str]] = [[]]
    root = soup.body or soup
    for el in root.find_all(_BLOCK_TAGS):
        if not isinstance(el, Tag) or el.find_parent(_BLOCK_TAGS) is not None:
            continue  # nested block: its text is already part of the enclosing one
        if el.name == "tr":
            text = "\t".join(c.get_text(" ", strip=True) for c in el.find_all(["td", "th"]))
        else:
            text = el.get_text(" ", strip=True)
        if el.name in _HEADINGS and any(sections[-1]):
            sections.append([])
        if text:
            sections[-1].append(text)
    if not any(sections[-1]) and len(sections) == 1:
        # No block markup at all (text in bare <div>s): fall back to the page's visible text.
        sections = [[line for line in root.get_text("\n", strip=True).splitlines()]]
    spans = _sections(["\n".join(s) for s in sections])
    _check_spans(spans, limits, "HTML page")
    return spans, None


def _sections(texts: list[str]) -> list[ParsedSpan]:
    spans: list[ParsedSpan] = []
    for text in texts:
        if text.strip():
            spans.append(
                ParsedSpan(locator=f"section={len(spans) + 1}", kind=SpanKind.SECTION, text=clip(text))
            )
    return spans

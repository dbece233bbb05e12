"""Text-like formats: CSV rows ("row=17"), HTML / Markdown / plain-text / JSON sections ("section=5").

Structure survives into span text: HTML ``<h1>``-``<h6>`` become markdown headings (``## Scope``) at the
start of their line, markdown keeps its own, and table rows are tab-separated lines (header row first).
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
from collections.abc import Callable
from pathlib import Path

from graphforge.models.workspace import SpanKind
from graphforge.parsers.base import (
    Extracted,
    ParsedSpan,
    ParseLimits,
    Refused,
    make_spans,
    row_spans,
    split_text,
)
from graphforge.parsers.detect import delimiter_of

_HEADING_RE = re.compile(r"^#{1,6}\s")
_FENCE_RE = re.compile(r"^\s*(```|~~~)")
_CELL_BREAK_RE = re.compile(r"\s*[\t\r\n]+\s*")
# An HTML block inside Markdown: a line opening a block-level tag (up to three spaces of indentation).
_HTML_BLOCK_RE = re.compile(r"^ {0,3}<(table|ul|ol|dl|div|p|h[1-6]|blockquote|section|article|figure)\b",
                            re.I)
_INLINE_TAG_RE = re.compile(r"</?[A-Za-z][\w-]*(?:\s[^<>]*)?/?>")
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


def _cell(value: str) -> str:
    # A tab or line break inside a cell would read as a new column or row of the tab-separated line.
    value = value.strip()
    if "\t" in value or "\n" in value or "\r" in value:  # rare: the regex only where it can match
        return _CELL_BREAK_RE.sub(" ", value)
    return value


def parse_csv(path: Path, limits: ParseLimits) -> Extracted:
    # The csv module refuses fields over 128 KiB by default; exports with long free-text or embedded
    # JSON columns have them. The file-size cap already bounds a field.
    csv.field_size_limit(max(csv.field_size_limit(), min(limits.max_file_bytes, 2**31 - 1)))
    text = read_text(path)
    head = text[:65536]
    delimiter = delimiter_of(head, truncated=len(text) > len(head))
    dialect: type[csv.Dialect] | csv.Dialect
    if delimiter is not None:
        dialect = csv.excel_tab if delimiter == "\t" else csv.excel
    else:
        try:
            dialect = csv.Sniffer().sniff(head, delimiters=",;\t|")
        except csv.Error:
            dialect = csv.excel
    out = Extracted()
    rows = 0
    try:
        source = io.StringIO(text, newline="")
        reader = (
            csv.reader(source, dialect, delimiter=delimiter) if delimiter else csv.reader(source, dialect)
        )
        for number, row in enumerate(reader, start=1):
            cells = [_cell(c) for c in row]
            if not any(cells):
                continue
            rows += 1
            if rows > limits.max_rows:
                out.dropped_rows += 1
                out.dropped_chars += sum(len(c) for c in cells)
                continue
            out.spans.extend(row_spans(_row_locator(number, len(cells)), SpanKind.ROW, cells, limits))
    except csv.Error as exc:
        raise Refused(f"malformed CSV: {exc}") from exc
    if out.dropped_rows:
        out.warnings.append(
            f"{out.dropped_rows} rows after the first {limits.max_rows} not stored (row cap max_rows)"
        )
    return out


def _row_locator(number: int, width: int) -> Callable[[int, int], str]:
    """``row=N`` for a whole row; ``row=N;cols=A-B`` (1-based, inclusive) for a part of a long one."""

    def locator(first: int, last: int) -> str:
        if first == 0 and last >= width - 1:
            return f"row={number}"
        return f"row={number};cols={first + 1}-{last + 1}"

    return locator


_COMMENT_RE = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)


def _without_comments(text: str) -> str:
    """Markdown without its HTML comments (converter notes, editors' to-dos): a reader never sees them. Code
    fences keep theirs (a fence shows the comment as text)."""
    parts = re.split(r"(^ {0,3}(?:```|~~~).*?(?:^ {0,3}(?:```|~~~)[^\n]*$|\Z))", text, flags=re.M | re.S)
    return "".join(p if i % 2 else _COMMENT_RE.sub("", p) for i, p in enumerate(parts))


def _markdown_lines(text: str) -> list[tuple[str, bool]]:
    """Markdown lines with its embedded HTML blocks rendered as the HTML reader renders a page: published
    reports mix ``<ul><li><strong>..`` and ``<table>`` blocks into Markdown, and their tags and entities
    (``&#39;``) are markup, not content. A block runs from a line opening a block tag to the line that
    closes it (CommonMark's rule, ended at a blank line, would cut tables written with blank lines). Each
    line comes with whether it sits in a code fence (kept verbatim there)."""
    lines = _without_comments(text).splitlines()
    out: list[tuple[str, bool]] = []
    fenced = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if _FENCE_RE.match(line):
            fenced = not fenced
        opened = None if fenced else _HTML_BLOCK_RE.match(line)
        if opened is None:
            bare = not fenced and ("<" in line or "&" in line)
            out.append((html.unescape(_INLINE_TAG_RE.sub("", line)) if bare else line, fenced))
            i += 1
            continue
        tag = opened.group(1).lower()
        block, depth = [], 0
        while i < len(lines):
            block.append(lines[i])
            depth += (len(re.findall(rf"<{tag}\b", lines[i], re.I))
                      - len(re.findall(rf"</{tag}\s*>", lines[i], re.I)))
            i += 1
            if depth <= 0:
                break
        out += [(rendered, False) for section in _html_sections("\n".join(block)) for rendered in section]
    return out


def parse_markdown(path: Path, limits: ParseLimits) -> Extracted:
    sections: list[list[str]] = [[]]
    for line, fenced in _markdown_lines(read_text(path)):
        # A heading outside a code fence opens a new section; headings stay with their section's text.
        if not fenced and _HEADING_RE.match(line) and any(s.strip() for s in sections[-1]):
            sections.append([])
        sections[-1].append(line)
    spans = _sections(["\n".join(s).strip() for s in sections], limits)
    _check_spans(spans, limits, "Markdown file")
    return Extracted(spans=spans)


def parse_text(path: Path, limits: ParseLimits) -> Extracted:
    blocks = re.split(r"\n\s*\n", read_text(path).replace("\r\n", "\n"))
    spans = _sections([b.strip() for b in blocks], limits)
    _check_spans(spans, limits, "text file")
    return Extracted(spans=spans)


def parse_json(path: Path, limits: ParseLimits) -> Extracted:
    try:
        data = json.loads(read_text(path))
    except ValueError as exc:
        raise Refused(f"malformed JSON: {exc}") from exc
    except RecursionError as exc:
        raise Refused("JSON nested too deeply to parse (recursion limit)") from exc
    if isinstance(data, dict):
        parts = [json.dumps({k: v}, ensure_ascii=False, indent=1) for k, v in data.items()]
    elif isinstance(data, list):
        parts = [json.dumps(v, ensure_ascii=False, indent=1) for v in data]
    else:
        parts = [json.dumps(data, ensure_ascii=False)]
    spans = _sections(parts, limits)
    _check_spans(spans, limits, "JSON file")
    return Extracted(spans=spans)


def parse_html(path: Path, limits: ParseLimits) -> Extracted:
    data = path.read_bytes()
    try:
        markup: str | bytes = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        # Not UTF-8: bs4 honours the page's BOM or <meta charset> (windows-1251, Shift_JIS, ...) before
        # guessing; a UTF-8 page is taken as such even when its meta tag claims otherwise.
        markup = data
    spans = _sections(["\n".join(s) for s in _html_sections(markup)], limits)
    _check_spans(spans, limits, "HTML page")
    return Extracted(spans=spans)


def _html_sections(markup: str | bytes) -> list[list[str]]:
    """The lines of an HTML page or fragment, one list per heading: a heading as ``## Title``, a table
    row as tab-separated cells, a list item as ``- item``, any other block as its text."""
    from bs4 import BeautifulSoup, Tag

    # lxml's HTML parser never expands DTD entities, so entity bombs have no effect here.
    soup = BeautifulSoup(markup, "lxml")
    for tag in soup(["script", "style", "noscript", "template", "head"]):
        tag.decompose()
    sections: list[list[str]] = [[]]
    root = soup.body or soup
    for el in root.find_all(_BLOCK_TAGS):
        if not isinstance(el, Tag) or el.find_parent(_BLOCK_TAGS) is not None:
            continue  # nested block: its text is already part of the enclosing one
        if el.name == "li":
            for sub in el.find_all(["ul", "ol"]):
                sub.extract()  # a nested list's items come next as items of their own, not in this one
        if el.name == "tr":
            text = "\t".join(_cell(c.get_text(" ", strip=True)) for c in el.find_all(["td", "th"]))
        else:
            text = " ".join(el.get_text(" ", strip=True).split())
        if el.name in _HEADINGS:
            if any(sections[-1]):
                sections.append([])
            text = "#" * int(el.name[1]) + " " + text if text else ""
        elif el.name == "li" and text:
            text = "- " + text
        if text:
            sections[-1].append(text)
    if not any(sections[-1]) and len(sections) == 1:
        # No block markup at all (text in bare <div>s): fall back to the page's visible text.
        sections = [[line for line in root.get_text("\n", strip=True).splitlines()]]
    return sections


def _sections(texts: list[str], limits: ParseLimits) -> list[ParsedSpan]:
    """One span per section ("section=N"); a section over the span cap becomes "section=N;part=K" spans,
    and a part of a table repeats the table's header row, so every part reads as a table."""
    spans: list[ParsedSpan] = []
    number = 0
    for text in texts:
        if not text.strip():
            continue
        number += 1
        spans.extend(make_spans(f"section={number}", SpanKind.SECTION, text, limits))
    return spans


def table_parts(lines: list[str], cap: int) -> list[str]:
    """Tab-separated table lines as texts of at most ``cap`` characters, each starting with the header
    row (the first line); a single row longer than the cap is split on its own."""
    text = "\n".join(lines)
    if len(text) <= cap or len(lines) < 2:
        return split_text(text, cap)
    header, parts, current = lines[0], [], [lines[0]]
    size = len(header)
    for line in lines[1:]:
        if size + 1 + len(line) > cap and len(current) > 1:
            parts.append("\n".join(current))
            current, size = [header], len(header)
        current.append(line)
        size += 1 + len(line)
    parts.append("\n".join(current))
    return [piece for part in parts for piece in split_text(part, cap)]

"""What every parser returns: a ParsedFile of located spans, plus the limits that keep hostile input small."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from graphforge.models.workspace import FileFormat, FileRow, SpanKind, SpanRow

# Default span length: a longer section is split into several spans (never cut); a span is evidence to
# quote, not a whole book. The cap is ``ParseLimits.max_span_chars`` (setting GRAPHFORGE_MAX_SPAN_CHARS).
MAX_SPAN_CHARS = 20_000
_SURROGATE_RE = re.compile("[\ud800-\udfff]")


class ParseLimits(BaseModel):
    """Caps that turn hostile or oversized input into an invalid file instead of a hung or dead run."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_file_bytes: int = Field(100 * 1024 * 1024, ge=1)
    max_pages: int = Field(2_000, ge=1)
    max_rows: int = Field(100_000, ge=1)  # per sheet / per CSV
    max_cells: int = Field(2_000_000, ge=1)  # per workbook
    max_spans: int = Field(50_000, ge=1)
    max_zip_members: int = Field(5_000, ge=1)
    max_unzipped_bytes: int = Field(1024 * 1024 * 1024, ge=1)
    max_zip_ratio: float = Field(200.0, gt=1)  # uncompressed / compressed per member: zip bombs sit far above
    max_span_chars: int = Field(MAX_SPAN_CHARS, ge=200)  # longer sections are split into parts, not cut
    max_xml_depth: int = Field(200, ge=2)  # deeper XML elements are folded into their ancestor's span
    ocr: bool = True  # images: run Tesseract when it is installed


class ParsedSpan(BaseModel):
    """One located piece of text; ``locator`` addresses it inside the file (page=3, sheet=Q2!A3:D3, ...)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    locator: str
    kind: SpanKind
    text: str
    formulas_json: str = ""


class Extracted(BaseModel):
    """What a format parser returns: spans plus everything about the file that is not span text.

    ``warnings`` and ``dropped_*`` make every cap visible: content that did not become spans is counted
    here and recorded on the File node, never lost in silence.
    """

    model_config = ConfigDict(extra="forbid")

    spans: list[ParsedSpan] = []
    pages: int | None = None
    warnings: list[str] = []
    dropped_chars: int = 0
    dropped_rows: int = 0
    width: int | None = None  # images: pixels
    height: int | None = None
    extractor: str | None = None  # the library that produced the text when a parser has several
    formulas_json: str = ""  # XLSX: formulas of rows that hold no value (template rows), by address


class ParsedFile(BaseModel):
    """A file's identity, validity and spans. Invalid files carry a reason and no spans."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str
    sha256: str
    size: int
    format: FileFormat
    valid: bool
    invalid_reason: str | None = None
    parser: str | None = None
    page_count: int | None = None
    spans: list[ParsedSpan] = []
    parse_seconds: float = 0.0
    warnings: list[str] = []
    dropped_chars: int = 0
    dropped_rows: int = 0
    width: int | None = None
    height: int | None = None
    formulas_json: str = ""

    def file_row(self) -> FileRow:
        return FileRow(
            sha256=self.sha256,
            size=self.size,
            format=self.format,
            valid=self.valid,
            invalid_reason=self.invalid_reason,
            parser=self.parser,
            span_count=len(self.spans),
            page_count=self.page_count,
            warnings=self.warnings,
            dropped_chars=self.dropped_chars,
            dropped_rows=self.dropped_rows,
            width=self.width,
            height=self.height,
            formulas_json=self.formulas_json,
        )

    def span_rows(self) -> list[SpanRow]:
        return [
            SpanRow(
                span_id=span_id(self.sha256, s.locator),
                file_sha256=self.sha256,
                locator=s.locator,
                kind=s.kind,
                ordinal=i,
                text=s.text,
                formulas_json=s.formulas_json,
            )
            for i, s in enumerate(self.spans)
        ]

    @property
    def text(self) -> str:
        """The whole file as text, spans separated by blank lines (what a read-file tool shows)."""
        return "\n\n".join(s.text for s in self.spans)


class Refused(Exception):
    """Raised inside a parser when input is hostile or broken; the message becomes the invalid reason."""


def span_id(sha256: str, locator: str) -> str:
    return f"{sha256[:16]}:{locator}"


def clean(text: str) -> str:
    """Lone UTF-16 surrogates (JSON "\\ud800" escapes, PDFs with broken ToUnicode maps) become U+FFFD:
    the Bolt driver encodes strings as UTF-8 and would fail the whole write batch on one of them."""
    if _SURROGATE_RE.search(text):
        return _SURROGATE_RE.sub("\ufffd", text)
    return text


def split_text(text: str, cap: int) -> list[str]:
    """``text`` in pieces of at most ``cap`` characters, cut at the best boundary available: a blank
    line, a line end, a sentence end, a space, and only for a run with none of these, mid-word.

    Joining the pieces with the boundary they were cut at gives the text back (nothing is dropped).
    """
    if len(text) <= cap:
        return [text]
    parts: list[str] = []
    rest = text
    while len(rest) > cap:
        window = rest[: cap + 1]
        cut = -1
        for sep in ("\n\n", "\n", ". ", " "):
            at = window.rfind(sep, cap // 4)
            if at > 0:
                cut = at + (1 if sep == ". " else 0)
                break
        if cut <= 0:
            cut = cap
        parts.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    if rest:
        parts.append(rest)
    return [p for p in parts if p]


def make_spans(
    locator: str, kind: SpanKind, text: str, limits: ParseLimits, formulas_json: str = ""
) -> list[ParsedSpan]:
    """One span, or several ``locator;part=N`` spans when the text is over ``limits.max_span_chars``."""
    text = clean(text)
    pieces = split_text(text, limits.max_span_chars)
    if len(pieces) == 1:
        return [ParsedSpan(locator=locator, kind=kind, text=pieces[0], formulas_json=formulas_json)]
    return [
        ParsedSpan(locator=f"{locator};part={i}", kind=kind, text=piece, formulas_json=formulas_json)
        for i, piece in enumerate(pieces, start=1)
    ]


def row_spans(
    locator: Callable[[int, int], str],
    kind: SpanKind,
    cells: Sequence[str],
    limits: ParseLimits,
    formulas_json: str = "",
) -> list[ParsedSpan]:
    """A table row as spans cut at cell boundaries, so every part keeps its columns.

    ``locator(first, last)`` names the part holding cells ``first..last`` (0-based, inclusive): a row
    within the cap is one span over all its cells; a longer row becomes several spans, each a run of whole
    cells whose locator says which columns it holds. A single cell over the cap is split further
    (``;part=N``), never cut.
    """
    cells = [clean(c) for c in cells]
    if len("\t".join(cells)) <= limits.max_span_chars:
        return make_spans(locator(0, max(0, len(cells) - 1)), kind, "\t".join(cells), limits, formulas_json)
    out: list[ParsedSpan] = []

    def emit(first: int, last: int) -> None:
        run = cells[first : last + 1]
        if any(run):
            out.extend(make_spans(locator(first, last), kind, "\t".join(run), limits, formulas_json))

    first, size = 0, 0
    for i, cell in enumerate(cells):
        if i > first and size + 1 + len(cell) > limits.max_span_chars:
            emit(first, i - 1)
            first, size = i, len(cell)
        else:
            size += len(cell) + (1 if i > first else 0)
    emit(first, len(cells) - 1)
    return out


def file_digest(path: Path) -> tuple[str, int]:
    """sha256 and size, read in chunks (files may be large)."""
    digest = hashlib.sha256()
    size = 0
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size

"""What every parser returns: a ParsedFile of located spans, plus the limits that keep hostile input small."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from graphforge.models.workspace import FileFormat, FileRow, SpanKind, SpanRow

# Spans longer than this are cut (with a marker): a span is evidence to quote, not a whole book.
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


class ParsedSpan(BaseModel):
    """One located piece of text; ``locator`` addresses it inside the file (page=3, sheet=Q2!A3:D3, ...)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    locator: str
    kind: SpanKind
    text: str
    formulas_json: str = ""


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


def clip(text: str) -> str:
    """Cut over-long span text, saying so, so one pathological span cannot bloat the graph.

    Lone UTF-16 surrogates (JSON "\\ud800" escapes, PDFs with broken ToUnicode maps) become U+FFFD here:
    the Bolt driver encodes strings as UTF-8 and would fail the whole write batch on one of them.
    """
    if _SURROGATE_RE.search(text):
        text = _SURROGATE_RE.sub("\ufffd", text)
    if len(text) <= MAX_SPAN_CHARS:
        return text
    return text[:MAX_SPAN_CHARS] + f"\n[... {len(text) - MAX_SPAN_CHARS} more characters cut]"


def file_digest(path: Path) -> tuple[str, int]:
    """sha256 and size, read in chunks (files may be large)."""
    digest = hashlib.sha256()
    size = 0
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size

"""Workspaces, files and spans: what a crawled folder becomes in the graph."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from graphforge.models.base import Row


class FileRole(StrEnum):
    """Hidden role of a file in its workspace; never shown to the working agent."""

    CORE = "core"
    SUPPORTING = "supporting"
    CONFUSER = "confuser"
    AMBIENT = "ambient"


class FileFormat(StrEnum):
    PDF = "pdf"
    XLSX = "xlsx"
    DOCX = "docx"
    PPTX = "pptx"
    CSV = "csv"
    HTML = "html"
    MARKDOWN = "markdown"
    TEXT = "text"
    JSON = "json"
    XML = "xml"
    IMAGE = "image"
    UNKNOWN = "unknown"


class SpanKind(StrEnum):
    PAGE = "page"            # locator "page=3"
    CELL_RANGE = "cell_range"  # locator "sheet=Q2!B4:F9" (one row of a table per span)
    PARAGRAPH = "paragraph"  # locator "para=12"
    TABLE = "table"          # locator "table=2" (docx) ; rows as tab-separated lines
    SLIDE = "slide"          # locator "slide=4"
    ROW = "row"              # locator "row=17" (csv)
    SECTION = "section"      # locator "section=5" (html / markdown / text blocks)
    ELEMENT = "element"      # locator "element=/catalog/group[2]/control[1]" (xml)
    # A section over the span-size cap is split into parts: "para=12;part=2", "page=3;part=1", ...


class SpanRow(Row):
    """One addressable piece of a file's text; ``span_id`` = f"{sha256[:16]}:{locator}"."""

    span_id: str
    file_sha256: str
    locator: str
    kind: SpanKind
    ordinal: int = Field(ge=0)
    text: str
    # For cell ranges: JSON object {"B4": "=SUM(B2:B3)", ...} of the formulas in the range, else "".
    formulas_json: str = ""


class FileRow(Row):
    """A file's content, keyed by sha256 (identical bytes are one node, whatever their names)."""

    sha256: str
    size: int = Field(ge=0)
    format: FileFormat
    valid: bool
    invalid_reason: str | None = None
    parser: str | None = None
    span_count: int = 0
    page_count: int | None = None
    # Content that did not become spans is never dropped in silence: a caps hit is a warning + counts.
    warnings: list[str] = Field(default_factory=list)
    dropped_chars: int = 0
    dropped_rows: int = 0
    width: int | None = None  # images, in pixels
    height: int | None = None
    # XLSX: {"Sheet!C12": "=B12*2", ...} formulas of rows with no value (template rows are not spans).
    formulas_json: str = ""


class WorkspaceRow(Row):
    workspace_id: str
    name: str
    root: str
    seed_id: str | None = None


class ContainsRow(Row):
    """(:Workspace)-[:CONTAINS {path, role, ...}]->(:File): names and roles are per workspace."""

    workspace_id: str
    sha256: str
    path: str  # relative to the workspace root, POSIX separators
    role: FileRole
    role_source: str  # "manifest" | "rules" | "llm:<model>"
    source_url: str | None = None
    license: str | None = None
    # Other paths in the same workspace with identical bytes (stored once; reported, never lost).
    duplicate_paths: list[str] = Field(default_factory=list)


class CandidateFile(Row):
    """A file the workspace loader found and may ingest, with its hidden role (added for the loader stage)."""

    path: str  # relative to the workspace root, POSIX separators
    abs_path: str
    role: FileRole
    role_source: str  # "manifest" | "rules" | "llm:<model>"
    source_url: str | None = None
    license: str | None = None


class FileIngestRow(FileRow):
    """A parsed file with all its spans: written in one transaction, then marked ``ingested``."""

    spans: list[SpanRow] = Field(default_factory=list)

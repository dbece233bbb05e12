"""Parse any workspace file into located spans: ``parse_file(path) -> ParsedFile``.

The format comes from the bytes (``detect_format``), not the name. Broken or hostile input never
raises: it comes back as an invalid ParsedFile with a reason. ``parse_files`` runs many files in worker
processes with a per-file timeout, so a parser that hangs or dies costs one file, not the run.

    from graphforge.parsers import parse_file
    parsed = parse_file(Path("report.pdf"))
    parsed.valid, parsed.format, [(s.locator, s.text[:40]) for s in parsed.spans]
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from graphforge.errors import SourceFormatError
from graphforge.models.workspace import FileFormat
from graphforge.parsers import docx, image, pdf, pptx, text, xlsx, xml
from graphforge.parsers.base import (
    Extracted,
    ParsedFile,
    ParsedSpan,
    ParseLimits,
    Refused,
    file_digest,
    span_id,
)
from graphforge.parsers.detect import Detection, detect_format
from graphforge.registry import Column, Registry

__all__ = [
    "Extracted",
    "ParsedFile",
    "ParsedSpan",
    "ParseLimits",
    "Detection",
    "detect_format",
    "parse_file",
    "parse_files",
    "span_id",
    "file_digest",
    "FILE_PARSERS",
    "FileParser",
    "PARSER_NAMES",
    "ParseTask",
]

ParserFn = Callable[[Path, ParseLimits], Extracted]


@dataclass(frozen=True)
class FileParser:
    """The parser of one file format (the format is told from the bytes by :func:`detect_format`)."""

    format: FileFormat
    name: str  # recorded on each File node as its parser ("pypdfium2", "openpyxl", ...)
    parse: ParserFn
    spans: str  # what its spans' locators name, for the docs


def _bundled() -> list[FileParser]:
    return [
        FileParser(FileFormat.PDF, pdf.NAME, pdf.parse, "page=3"),
        FileParser(FileFormat.XLSX, xlsx.NAME, xlsx.parse, "sheet=Q2!B4:F9 (a table row)"),
        FileParser(FileFormat.DOCX, docx.NAME, docx.parse, "para=12, table=2"),
        FileParser(FileFormat.PPTX, pptx.NAME, pptx.parse, "slide=4"),
        FileParser(FileFormat.CSV, "csv", text.parse_csv, "row=17"),
        FileParser(FileFormat.HTML, "bs4-lxml", text.parse_html, "section=5"),
        FileParser(FileFormat.MARKDOWN, "markdown", text.parse_markdown, "section=5"),
        FileParser(FileFormat.TEXT, "text", text.parse_text, "section=5"),
        FileParser(FileFormat.JSON, "json", text.parse_json, "section=5"),
        FileParser(FileFormat.XML, xml.NAME, xml.parse, "element=/catalog/group[2]"),
        FileParser(FileFormat.IMAGE, image.NAME, image.parse, "image=1 (OCR text)"),
    ]


# The file parsers, one per FileFormat the detector tells (the formats are a closed enum: detection reads
# each one's bytes, so a new format also needs its detection in parsers/detect.py).
FILE_PARSERS: Registry[FileParser] = Registry(
    "file parser",
    FileParser,
    lambda p: p.format.value,
    builtin=_bundled,
    rank=lambda p: list(FileFormat).index(p.format),
    columns=(
        Column("format", lambda p: f"`{p.format.value}`"),
        Column("parser", lambda p: p.name),
        Column("span locators", lambda p: p.spans),
    ),
)
PARSER_NAMES = {p.format: p.name for p in FILE_PARSERS}


def parse_file(
    path: Path, limits: ParseLimits | None = None, *, sha256: str | None = None, size: int | None = None
) -> ParsedFile:
    """Detect the format of ``path`` and parse it into spans; bad content gives ``valid=False`` + reason.

    Args:
        sha256, size: the caller's digest when it already has one (saves reading the file twice).

    Raises:
        SourceFormatError: only when the path itself cannot be read (missing, a folder, no permission).
    """
    limits = limits or ParseLimits()
    started = time.perf_counter()
    try:
        if sha256 is None or size is None:
            sha256, size = file_digest(path)
        detection = detect_format(path)
    except OSError as exc:
        raise SourceFormatError(path, f"cannot read file: {exc.strerror or exc}") from exc
    fmt = detection.format

    def result(
        valid: bool, reason: str | None = None, parser: str | None = None, out: Extracted | None = None
    ) -> ParsedFile:
        out = out or Extracted()
        return ParsedFile(
            path=str(path),
            sha256=sha256,
            size=size,
            format=fmt,
            valid=valid,
            invalid_reason=reason,
            parser=out.extractor or parser,
            page_count=out.pages,
            spans=out.spans,
            parse_seconds=round(time.perf_counter() - started, 4),
            warnings=out.warnings,
            dropped_chars=out.dropped_chars,
            dropped_rows=out.dropped_rows,
            width=out.width,
            height=out.height,
            formulas_json=out.formulas_json,
        )

    if size > limits.max_file_bytes:
        return result(False, f"file is {size} bytes, over the size limit of {limits.max_file_bytes} bytes")
    if detection.refusal:
        return result(False, detection.refusal)
    parser = FILE_PARSERS.get(fmt.value)
    name, parse = parser.name, parser.parse
    try:
        out = parse(path, limits)
    except Refused as exc:
        return result(False, str(exc), name)
    except MemoryError:
        return result(False, "parser ran out of memory (worker memory cap)", name)
    except RecursionError:
        return result(False, "structure nested too deeply to parse (recursion limit)", name)
    except Exception as exc:  # any library's failure on bad bytes is a property of the file, not a crash
        message = str(exc).splitlines()[0][:300] if str(exc) else ""
        return result(False, f"{name} could not parse it: {type(exc).__name__}: {message}".rstrip(": "), name)
    if len(out.spans) > limits.max_spans:
        return result(False, f"{len(out.spans)} spans, over the cap of {limits.max_spans}", name)
    return result(True, None, name, out)


from graphforge.parsers.pool import ParseTask, parse_files  # noqa: E402  (pool imports parse_file)

"""Format detection from content: magic bytes, zip member names, text sniffing; the extension breaks ties."""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

from graphforge.models.workspace import FileFormat

_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_IMAGE_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a", b"RIFF", b"II*\x00", b"MM\x00*")
_OOXML_MAIN = {
    "xl/workbook.xml": FileFormat.XLSX,
    "word/document.xml": FileFormat.DOCX,
    "ppt/presentation.xml": FileFormat.PPTX,
}
_HTML_RE = re.compile(
    rb"^\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body)\b", re.IGNORECASE | re.DOTALL
)
_MD_RE = re.compile(r"^(?:#{1,6} \S|\s*[-*+] \S|\s*\d+\. \S|\|.*\|\s*$|```|> \S)", re.MULTILINE)
_MD_EXT = {".md", ".markdown", ".mdown"}
_MD_TABLE_RULE_RE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)+\|?\s*$", re.MULTILINE)
_XML_RE = re.compile(
    r"^\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--.*?-->\s*|<\?.*?\?>\s*|<!DOCTYPE[^\[>]*(?:\[.*?\])?\s*>\s*)*"
    r"<([A-Za-z_][\w.:-]*)",
    re.DOTALL,
)
_DELIMITERS = (",", "\t", ";", "|")
SNIFF_BYTES = 64 * 1024
# What a name promises: a file named like this whose bytes are something else is refused, not read as text.
_PROMISED = {
    ".pdf": FileFormat.PDF,
    ".xlsx": FileFormat.XLSX,
    ".xlsm": FileFormat.XLSX,
    ".xltx": FileFormat.XLSX,
    ".xltm": FileFormat.XLSX,
    ".docx": FileFormat.DOCX,
    ".docm": FileFormat.DOCX,
    ".dotx": FileFormat.DOCX,
    ".dotm": FileFormat.DOCX,
    ".pptx": FileFormat.PPTX,
    ".pptm": FileFormat.PPTX,
    ".potx": FileFormat.PPTX,
    ".png": FileFormat.IMAGE,
    ".jpg": FileFormat.IMAGE,
    ".jpeg": FileFormat.IMAGE,
    ".gif": FileFormat.IMAGE,
    ".tif": FileFormat.IMAGE,
    ".tiff": FileFormat.IMAGE,
    ".webp": FileFormat.IMAGE,
}
# Binary formats GraphForge does not read: their real bytes get their own refusal (legacy Office, a zip
# that is no Office document); text under such a name is refused too, and a readable format under it (a
# DOCX named .zip) is read by its content.
_PROMISED_UNREAD = {
    ".xls": "XLS",
    ".doc": "DOC",
    ".ppt": "PPT",
    ".odt": "ODT",
    ".ods": "ODS",
    ".odp": "ODP",
    ".zip": "a zip archive",
}
_TEXT_FORMATS = frozenset(
    {FileFormat.TEXT, FileFormat.MARKDOWN, FileFormat.CSV, FileFormat.HTML, FileFormat.JSON, FileFormat.XML}
)
_LABEL = {
    FileFormat.PDF: "PDF",
    FileFormat.XLSX: "XLSX",
    FileFormat.DOCX: "DOCX",
    FileFormat.PPTX: "PPTX",
    FileFormat.IMAGE: "an image",
    FileFormat.CSV: "CSV text",
    FileFormat.HTML: "HTML",
    FileFormat.MARKDOWN: "text",
    FileFormat.TEXT: "text",
    FileFormat.JSON: "JSON",
    FileFormat.XML: "XML",
    FileFormat.UNKNOWN: "unrecognised binary data",
}


@dataclass(frozen=True)
class Detection:
    format: FileFormat
    detail: str = ""  # why: "zip member word/document.xml", "utf-8 text", ...
    refusal: str | None = None  # set when the container itself is unusable (empty zip, encrypted, ...)


def detect_format(path: Path) -> Detection:
    """Decide a file's format from its bytes. Never raises for bad content; unreadable paths raise OSError.

    A name that promises a binary format (``.pdf``, ``.xlsx``, ``.docx``, ``.pptx``, images, and the
    legacy Office, OpenDocument and zip names) over other bytes gives a refusal "content is X, not Y":
    such a file is never stored as text.
    """
    with path.open("rb") as fh:
        head = fh.read(SNIFF_BYTES)
    ext = path.suffix.lower()
    try:
        found = _detect(path, head, ext)
    except OSError:
        raise
    except Exception as exc:  # noqa: BLE001  (RecursionError, odd bytes: a property of the file)
        reason = f"format detection failed: {type(exc).__name__}"
        found = Detection(FileFormat.UNKNOWN, "detection failed", reason)
    promised = _PROMISED.get(ext)
    if promised is not None and found.format is not promised and found.refusal is None:
        return Detection(
            found.format,
            found.detail,
            f"content is {_LABEL[found.format]}, not {_LABEL[promised]} (the name says {ext})",
        )
    unread = _PROMISED_UNREAD.get(ext)
    if unread is not None and found.format in _TEXT_FORMATS and found.refusal is None:
        return Detection(found.format, found.detail,
                         f"content is {_LABEL[found.format]}, not {unread} (the name says {ext})")
    return found


def _detect(path: Path, head: bytes, ext: str) -> Detection:
    if not head:
        return Detection(FileFormat.UNKNOWN, "empty file", "empty file (0 bytes)")
    if b"%PDF-" in head[:1024]:
        return Detection(FileFormat.PDF, "%PDF- header")
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")):
        return _detect_zip(path, ext)
    if head.startswith(_OLE_MAGIC):
        return _detect_ole(path, head, ext)
    if head.startswith(_IMAGE_MAGIC):
        return Detection(FileFormat.IMAGE, "image magic bytes")
    text = _decode(head)
    if text is None:
        return Detection(
            FileFormat.UNKNOWN, "binary content", "unsupported binary format (no known signature)"
        )
    return _detect_text(head, text, ext, truncated=len(head) >= SNIFF_BYTES)


def _detect_zip(path: Path, ext: str) -> Detection:
    try:
        with zipfile.ZipFile(path) as zf:
            names = zf.namelist()
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        fmt = {".xlsx": FileFormat.XLSX, ".docx": FileFormat.DOCX, ".pptx": FileFormat.PPTX}.get(
            ext, FileFormat.UNKNOWN
        )
        return Detection(fmt, "zip signature", f"corrupt zip container: {exc}")
    if not names:
        return Detection(FileFormat.UNKNOWN, "zip signature", "empty zip archive (no members)")
    for member, fmt in _OOXML_MAIN.items():
        if member in names:
            return Detection(fmt, f"zip member {member}")
    return Detection(
        FileFormat.UNKNOWN,
        "zip archive",
        f"zip archive that is not an Office document ({len(names)} members)",
    )


def _detect_ole(path: Path, head: bytes, ext: str) -> Detection:
    # Password-protected OOXML files are OLE compound files holding EncryptionInfo + EncryptedPackage.
    names = head + _ole_directory(path, head)
    if "EncryptionInfo".encode("utf-16-le") in names or "EncryptedPackage".encode("utf-16-le") in names:
        fmt = {".xlsx": FileFormat.XLSX, ".docx": FileFormat.DOCX, ".pptx": FileFormat.PPTX}.get(
            ext, FileFormat.UNKNOWN
        )
        return Detection(
            fmt, "OLE container with EncryptionInfo", "encrypted Office document (password required)"
        )
    return Detection(
        FileFormat.UNKNOWN,
        "OLE compound file",
        "legacy binary Office format (.doc/.xls/.ppt) is not supported",
    )


def _ole_directory(path: Path, head: bytes) -> bytes:
    """The first directory sector of an OLE compound file, wherever the header says it is.

    Writers place the directory anywhere (Office often puts it after the payload), so in a large
    encrypted workbook the stream names are not within the sniffed head.
    """
    if len(head) < 512:
        return b""
    shift = int.from_bytes(head[30:32], "little")
    first = int.from_bytes(head[48:52], "little")
    if shift not in (9, 12) or first >= 0xFFFFFFFA:
        return b""
    size = 1 << shift
    with path.open("rb") as fh:
        fh.seek((first + 1) * size)  # sector n starts after the one-sector header
        return fh.read(size)


def _decode(head: bytes) -> str | None:
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return head.decode("utf-16", errors="ignore")
    if b"\x00" in head:
        return None
    try:
        return head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start >= len(head) - 4:  # a multi-byte character cut at the sniff boundary
            return head[: exc.start].decode("utf-8")
    text = head.decode("latin-1")
    printable = sum(ch.isprintable() or ch in "\r\n\t" for ch in text)
    return text if printable / max(1, len(text)) > 0.95 else None


def _detect_text(head: bytes, text: str, ext: str, *, truncated: bool = False) -> Detection:
    # A UTF-8 byte-order mark (Windows editors, many web exports) must not hide the markup behind it.
    head, text = head.removeprefix(b"\xef\xbb\xbf"), text.removeprefix("\ufeff")
    if _HTML_RE.match(head) or (ext in {".html", ".htm"} and "<" in text[:2048]):
        return Detection(FileFormat.HTML, "html markup")
    stripped = text.lstrip()
    if stripped[:1] in "{[" and ext in {".json", ".jsonl", ""}:
        try:
            json.loads(text)
            return Detection(FileFormat.JSON, "json")
        except (ValueError, RecursionError):
            # A big file's head is cut mid-document; its name and opening bracket decide.
            if truncated and ext == ".json":
                return Detection(FileFormat.JSON, "json (head of a large file)")
    xml = _XML_RE.match(text)
    if xml is not None and ext not in _MD_EXT and ext not in {".csv", ".tsv", ".txt"}:
        if xml.group(1).lower() == "html":
            return Detection(FileFormat.HTML, "xhtml markup")
        return Detection(FileFormat.XML, f"xml root <{xml.group(1)}>")
    if ext in _MD_EXT:
        return Detection(FileFormat.MARKDOWN, "markdown (by name)")
    lines = [line for line in text.splitlines()[:50] if line.strip()]
    # Structure before syntax: a CSV export whose quoted fields hold "- bullets" or "# notes" is a table
    # of rows, which only a real CSV read of the records shows; a markdown pipe table has its --- rule.
    if not _MD_TABLE_RULE_RE.search(text[:8192]) and _looks_like_csv(text, ext, truncated):
        return Detection(FileFormat.CSV, "delimited rows")
    if len(_MD_RE.findall("\n".join(lines))) >= max(2, len(lines) // 5):
        return Detection(FileFormat.MARKDOWN, "markdown syntax")
    if ext in {".csv", ".tsv"} and (
        _looks_like_csv(text, ext, truncated, loose=True) or (truncated and _one_wide_record(text))
    ):
        return Detection(FileFormat.CSV, "delimited rows (by name)")
    return Detection(FileFormat.TEXT, "text")


def delimiter_of(text: str, truncated: bool = False) -> str | None:
    """The delimiter under which the records of ``text`` (read as CSV, quoted line breaks honoured)
    have one consistent field count above 1, or None when no delimiter gives a table.

    ``truncated``: ``text`` is the head of a larger file, so its last record may be cut short; it
    counts as a record when it has no more fields than the header (a wide export's head may hold
    only the header and part of the first data row).
    """
    best: tuple[float, int, str] | None = None
    for delim in _DELIMITERS:
        if delim not in text:
            continue
        try:
            rows = [r for r in csv.reader(io.StringIO(text, newline=""), delimiter=delim) if r][:200]
        except csv.Error:
            continue
        partial = rows.pop() if truncated and len(rows) >= 2 else None
        if not rows or len(rows) + (partial is not None) < 2:
            continue
        width = len(rows[0])
        share = sum(len(r) == width for r in rows) / len(rows)
        if partial is not None and not 2 <= len(partial) <= width:
            continue
        # Markdown whose list items hold commas: the records themselves start with markdown syntax.
        md_starts = sum(bool(_MD_RE.match(r[0])) for r in rows)
        if md_starts >= max(2, len(rows) // 5):
            continue
        if width > 1 and share >= 0.9 and (best is None or (share, width) > best[:2]):
            best = (share, width, delim)
    return best[2] if best else None


def _one_wide_record(text: str) -> bool:
    """A head that is all one (cut) record with many fields: a header wider than the sniff window."""
    for delim in _DELIMITERS:
        try:
            rows = [r for r in csv.reader(io.StringIO(text, newline=""), delimiter=delim) if r][:2]
        except csv.Error:
            continue
        if len(rows) == 1 and len(rows[0]) >= 20:
            return True
    return False


def _looks_like_csv(text: str, ext: str, truncated: bool, *, loose: bool = False) -> bool:
    body = text.replace("\r\n", "\n")
    lines = [line for line in body.splitlines() if line.strip()]
    if len(lines) < 2:
        return ext in {".csv", ".tsv"}
    if not loose and len(lines) < 3 and ext not in {".csv", ".tsv"}:
        return False
    return delimiter_of(body, truncated) is not None

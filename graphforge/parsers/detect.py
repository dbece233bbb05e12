"""Format detection from content: magic bytes, zip member names, text sniffing; the extension breaks ties."""

from __future__ import annotations

import csv
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
SNIFF_BYTES = 64 * 1024


@dataclass(frozen=True)
class Detection:
    format: FileFormat
    detail: str = ""  # why: "zip member word/document.xml", "utf-8 text", ...
    refusal: str | None = None  # set when the container itself is unusable (empty zip, encrypted, ...)


def detect_format(path: Path) -> Detection:
    """Decide a file's format from its bytes. Never raises for bad content; unreadable paths raise OSError."""
    with path.open("rb") as fh:
        head = fh.read(SNIFF_BYTES)
    ext = path.suffix.lower()
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
    return _detect_text(head, text, ext)


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


def _detect_text(head: bytes, text: str, ext: str) -> Detection:
    # A UTF-8 byte-order mark (Windows editors, many web exports) must not hide the markup behind it.
    head, text = head.removeprefix(b"\xef\xbb\xbf"), text.removeprefix("\ufeff")
    if _HTML_RE.match(head) or (ext in {".html", ".htm"} and "<" in text[:2048]):
        return Detection(FileFormat.HTML, "html markup")
    stripped = text.lstrip()
    if stripped[:1] in "{[" and ext in {".json", ""}:
        try:
            json.loads(text)
            return Detection(FileFormat.JSON, "json")
        except ValueError:
            pass
    lines = [line for line in text.splitlines()[:50] if line.strip()]
    if ext in _MD_EXT or len(_MD_RE.findall("\n".join(lines))) >= max(2, len(lines) // 5):
        return Detection(FileFormat.MARKDOWN, "markdown syntax")
    if _looks_like_csv(lines, ext):
        return Detection(FileFormat.CSV, "delimited rows")
    return Detection(FileFormat.TEXT, "text")


def _looks_like_csv(lines: list[str], ext: str) -> bool:
    if len(lines) < 2:
        return ext in {".csv", ".tsv"}
    sample = "\n".join(lines[:20])
    try:
        dialect = csv.Sniffer().sniff(sample, delimiters=",;\t|")
    except csv.Error:
        return False
    counts = {len(row) for row in csv.reader(lines[:20], dialect)}
    # A table: every row has the same number of fields, and more than one of them.
    return len(counts) == 1 and counts.pop() > 1

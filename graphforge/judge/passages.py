"""Every place a deliverable file holds text, as passages: ``passages(path) -> list[Passage]``.

The layout readers (``graphforge.judge.documents``) show what a deliverable looks like; a note to the grader
can sit where nothing shows. Here every place is read, whatever it looks like:

- Office packages (XLSX, DOCX, PPTX): the text of every XML part, one passage per part with one line per
  paragraph, shared string, comment or property, and the attributes that carry text without showing it
  (alt text ``descr`` and ``title``, data-validation prompts and errors, shape and defined names). That is
  cell comments and threaded comments, hidden sheets, rows and columns, formulas, document properties (core,
  app and custom), speaker notes, alt text, text boxes, headers, footers, footnotes, comments, hidden runs and
  white or tiny text, all of which the layout readers skip or show as if visible.
- Text files (Markdown, text, CSV, JSON, HTML): each HTML comment on its own and the raw text.
- Always: the file's own name, and the names of a package's members.

Packages are checked for bombs, damage and entity declarations first (``graphforge.parsers.safety``); a
package that fails the check gives only its name (the layout reader refuses it anyway). Nothing here raises
on bad content.
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

__all__ = ["Passage", "passages"]

MAX_TEXT_BYTES = 16 * 1024 * 1024  # text read from one deliverable, all parts together
_TEXT_ATTRIBUTES = frozenset({"descr", "title", "prompt", "error", "promptTitle", "errorTitle", "tooltip",
                              "name", "alt"})
# Elements whose text is one line: a paragraph (w:p, a:p), a shared or inline string, a comment's text.
_LINE_ELEMENTS = frozenset({"p", "si", "is", "text", "comment"})
_SKIP_ELEMENTS = frozenset({"v"})  # cached cell values: numbers and shared-string indexes
# What a part holds, by its name, to say where a passage came from.
_KINDS = (
    (re.compile(r"comments|threadedComments|commentsExtended|people", re.I), "comments"),
    (re.compile(r"^docProps/|customXml/", re.I), "document properties"),
    (re.compile(r"notesSlide|notesMaster", re.I), "speaker notes"),
    (re.compile(r"header|footer", re.I), "headers and footers"),
    (re.compile(r"footnotes|endnotes", re.I), "footnotes"),
    (re.compile(r"drawings?/|media/|diagrams?/", re.I), "drawings and alt text"),
    (re.compile(r"charts?/", re.I), "charts"),
    (re.compile(r"^xl/worksheets/", re.I), "sheet"),
    (re.compile(r"^xl/sharedStrings", re.I), "cell text"),
    (re.compile(r"^xl/workbook", re.I), "workbook (sheet and defined names)"),
    (re.compile(r"^ppt/slides/", re.I), "slide"),
    (re.compile(r"^word/document", re.I), "document body"),
)


@dataclass(frozen=True)
class Passage:
    where: str  # "comments (xl/comments1.xml)", "speaker notes (ppt/notesSlides/notesSlide2.xml)", ...
    text: str


def passages(path: Path) -> list[Passage]:
    """The text of every place in the file at ``path`` (see the module docstring), never raising."""
    out = [Passage("file name", _spaced(path.name))]
    try:
        if zipfile.is_zipfile(path):
            out += _package(path)
        elif path.is_file():
            out += _text_file(path)
    except (OSError, ValueError, zipfile.BadZipFile, RuntimeError):
        pass
    return [p for p in out if p.text.strip()]


def _spaced(name: str) -> str:
    """A file name read as words: 'NOTE_TO_GRADER-score-1.0.md' -> 'NOTE TO GRADER score 1.0 md'."""
    return re.sub(r"(?<!\d)[._-]+|[._-]+(?!\d)|%20", " ", name).strip()


def _kind(part: str) -> str:
    return next((kind for pattern, kind in _KINDS if pattern.search(part)), "package part")


def _package(path: Path) -> list[Passage]:
    from graphforge.parsers.base import ParseLimits, Refused
    from graphforge.parsers.safety import check_package

    try:
        check_package(path, ParseLimits())
    except Refused:
        return []
    out: list[Passage] = []
    budget = MAX_TEXT_BYTES
    with zipfile.ZipFile(path) as zf:
        names = [i.filename for i in zf.infolist()]
        out.append(Passage("package member names", "\n".join(_spaced(PurePosixPath(n).name) for n in names)))
        for info in zf.infolist():
            if not info.filename.endswith((".xml", ".vml", ".rels")) or info.file_size > budget:
                continue
            budget -= info.file_size
            text = _xml_text(zf.read(info))
            if text:
                out.append(Passage(f"{_kind(info.filename)} ({info.filename})", text))
    return out


def _xml_text(data: bytes) -> str:
    """The text of one XML part, a line per paragraph-like element, then its text-bearing attributes."""
    from defusedxml import ElementTree  # type: ignore[import-untyped]
    from defusedxml.common import DefusedXmlException  # type: ignore[import-untyped]

    try:
        root = ElementTree.fromstring(data)
    except (ElementTree.ParseError, DefusedXmlException, ValueError):
        return ""
    lines: list[str] = []
    attributes: list[str] = []

    def local(tag: object) -> str:
        return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""

    def walk(element: object) -> None:
        name = local(getattr(element, "tag", ""))
        for key, value in getattr(element, "attrib", {}).items():
            if local(key) in _TEXT_ATTRIBUTES and value and value.strip():
                attributes.append(value.strip())
        if name in _LINE_ELEMENTS:
            line = "".join(element.itertext()).strip()  # type: ignore[attr-defined]
            if line:
                lines.append(line)
            for child in element:  # type: ignore[attr-defined]
                _attributes_only(child)
            return
        if name not in _SKIP_ELEMENTS:
            own = (getattr(element, "text", None) or "").strip()
            if own:
                lines.append(own)
        for child in element:  # type: ignore[attr-defined]
            walk(child)

    def _attributes_only(element: object) -> None:
        for key, value in getattr(element, "attrib", {}).items():
            if local(key) in _TEXT_ATTRIBUTES and value and value.strip():
                attributes.append(value.strip())
        for child in element:  # type: ignore[attr-defined]
            _attributes_only(child)

    walk(root)
    return "\n".join([*lines, *attributes])


_HTML_COMMENT = re.compile(r"<!--(.*?)-->", re.DOTALL)


def _text_file(path: Path) -> list[Passage]:
    with path.open("rb") as handle:
        data = handle.read(MAX_TEXT_BYTES)
    text = data.decode("utf-8", errors="replace")
    out = [Passage("HTML comment", m.group(1)) for m in _HTML_COMMENT.finditer(text)]
    out.append(Passage("raw text", text))
    return out

"""PDF pages: one span per page with text ("page=3"), from the extractor the PDF benchmark chose.

Measured (bench/pdf_bench.py, this machine, loaded): word F1 1.0 for all four extractors on prose, two
columns, a ruled table, small type and kerned runs; rotated text: pypdf layout and pdfminer 0.0; a
/Rotate 90 page: pdfminer 0.0; word gaps narrower than ~1.5 pt ("tight_kerning"): pypdfium2 (with the
character-box gaps of ``pdfium_text``) 1.0, pdfminer 0.99, pypdf plain 0.12, pypdf layout 0.02. Table rows
kept as tab-separated cells: pypdfium2 and pypdf layout all, pypdf plain and pdfminer none. Speed on the
corpus's 414 real pages, one run: pypdfium2 29.0 pages/s, pypdf plain 4.6, pypdf layout 4.5, pdfminer
2.4; the box reads cost pdfium about half its speed (47 against 96 pages/s on the same pages in one run).
pypdfium2 is the fastest and the most accurate, so it is the default; pypdf plain is the first fallback.

``bench/pdf_bench.py`` measures word accuracy against known text (PDFs generated with reportlab in
several layouts: prose, two columns, a table, rotated text, a rotated page) and pages/s for pypdf
(plain and layout modes), pdfminer.six and pypdfium2; the default is the most accurate extractor within
2x of the fastest (``DEFAULT``). A page the default returns nothing for is read again by the
``FALLBACKS`` in turn (layout mode returns nothing for rotated text that plain mode reads), and the
file's warnings say how many pages needed one. Lines of a table keep their cells apart with a tab
(pdfium, from the gap between character boxes) or runs of spaces (pypdf layout); ``table_lines`` turns
aligned runs of such lines into tab-separated rows (the header row first), as DOCX/XLSX tables read.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from graphforge.models.workspace import SpanKind
from graphforge.parsers.base import Extracted, ParsedSpan, ParseLimits, Refused, make_spans

NAME = "pypdf"
_EOF_WINDOW = 64 * 1024
_GAP_RE = re.compile(r" {2,}|\t")

Pages = Sequence[int] | None  # 0-based page indices to read; None: all
Extractor = Callable[[Path, Pages], Iterator[str | BaseException]]


# ---- extractors: path -> one text (or the exception it raised) per page asked for ---------------------


def pypdf_pages(path: Path, pages: Pages = None, mode: str = "plain") -> Iterator[str | BaseException]:
    from pypdf import PdfReader

    logging.getLogger("pypdf").setLevel(logging.ERROR)
    reader = PdfReader(path, strict=False)
    if reader.is_encrypted:
        reader.decrypt("")
    for index in range(len(reader.pages)) if pages is None else pages:
        try:
            yield page_text(reader.pages[index], mode)
        except (MemoryError, RecursionError):
            raise
        except Exception as exc:  # noqa: BLE001  (one page's broken font or stream)
            yield exc


def page_text(page: Any, mode: str = "plain") -> str:
    """pypdf's text of one page; layout mode pads with spaces, so margins and blank runs are trimmed."""
    raw = page.extract_text(extraction_mode="layout") if mode == "layout" else page.extract_text()
    return _tidy(raw or "")


def pdfium_pages(path: Path, pages: Pages = None) -> Iterator[str | BaseException]:
    import pypdfium2 as pdfium  # type: ignore[import-untyped]

    doc = pdfium.PdfDocument(str(path))
    try:
        for index in range(len(doc)) if pages is None else pages:
            try:
                page = doc[index]
                textpage = page.get_textpage()
                text = pdfium_text(textpage)
                textpage.close()
                page.close()
                yield _tidy(text.replace("\r\n", "\n").replace("\r", "\n"))
            except (MemoryError, RecursionError):
                raise
            except Exception as exc:  # noqa: BLE001
                yield exc
    finally:
        doc.close()


# Gaps measured between pdfium's loose character boxes (origin to advance, font ascent to descent), in
# units of the box height (about 1.15 em for Helvetica), on the reportlab layouts of bench/pdf_bench.py:
# letters of a word abut (gap 0), word spaces are 0.2-1.2 heights, ruled-table cells 5-10 heights apart,
# and condensed lines whose word gaps are TJ offsets of 1.0-1.4 pt at 10 pt leave 0.085-0.12 heights
# with no space character at all.
_CELL_GAP = 2.0   # a space wider than this separates two cells of a table row
_KERN_GAP = 0.06  # a gap inside a "word" wider than this (and unlike its other gaps) is a word space
_SPACE_BETWEEN_RE = re.compile(r"(?<=\S) (?=\S)")
# Glued words are long and hold no digits: short tokens and figures (a table's "1,234,567") cost no box
# reads, which are most of this function's time.
_LONG_TOKEN_RE = re.compile(r"(?<!\S)[^\s\d]{8,}(?!\S)")
_WORD_END = frozenset(".,;:!?)\u201d\u2019'\"")


def pdfium_text(textpage: Any) -> str:
    """pdfium's text of a page, with table cells kept apart by tabs and tightly kerned words split.

    pdfium writes one space however wide the gap it stands for, so a table row reads like prose
    ("Segment Budget Actual"); it also writes no space where a word gap is narrower than its own
    threshold ("willservefacilitatethe"). Both are told from the character boxes.
    """
    text: str = textpage.get_text_range()
    if len(text) != textpage.count_chars():
        return text  # characters outside the BMP: string and box indices no longer line up
    chars = list(text)
    import pypdfium2.raw as pdfium_raw  # type: ignore[import-untyped]

    rect, handle, loose_box = pdfium_raw.FS_RECTF(), textpage.raw, pdfium_raw.FPDFText_GetLooseCharBox

    def box(i: int) -> tuple[float, float, float, float]:
        loose_box(handle, i, rect)
        return rect.left, rect.bottom, rect.right, rect.top

    def gap(a: tuple[float, ...], b: tuple[float, ...]) -> float | None:
        """Horizontal gap from box a to box b in heights of a, or None when b is not on a's line."""
        height = a[3] - a[1]
        if height <= 0 or abs(a[1] - b[1]) > height / 2:
            return None
        return (b[0] - a[2]) / height

    for m in _SPACE_BETWEEN_RE.finditer(text):
        i = m.start()
        g = gap(box(i - 1), box(i + 1))
        if g is not None and g > _CELL_GAP:
            chars[i] = "\t"
    for m in _LONG_TOKEN_RE.finditer(text):
        boxes = [box(i) for i in range(m.start(), m.end())]
        gaps = [gap(a, b) for a, b in zip(boxes, boxes[1:], strict=False)]
        known = sorted(g for g in gaps if g is not None)
        if not known or known[len(known) // 2] > _KERN_GAP / 2:
            continue  # letter-spaced (tracked) text: every gap is wide, none is a word space
        for k, g in enumerate(gaps):
            left, right = text[m.start() + k], text[m.start() + k + 1]
            # Only between a word's end and a word's start: dot leaders and dashes set apart stay as drawn.
            if (g is not None and _KERN_GAP < g <= _CELL_GAP and right.isalnum()
                    and (left.isalnum() or left in _WORD_END)):
                chars[m.start() + k] += " "
    return "".join(chars)


def pdfminer_pages(path: Path, pages: Pages = None) -> Iterator[str | BaseException]:
    from pdfminer.high_level import extract_pages
    from pdfminer.layout import LAParams, LTTextContainer

    logging.getLogger("pdfminer").setLevel(logging.ERROR)
    numbers = None if pages is None else list(pages)
    for layout in extract_pages(str(path), laparams=LAParams(), page_numbers=numbers):
        yield _tidy("\n".join(el.get_text() for el in layout if isinstance(el, LTTextContainer)))


def _pypdf_plain(path: Path, pages: Pages = None) -> Iterator[str | BaseException]:
    return pypdf_pages(path, pages, "plain")


def _pypdf_layout(path: Path, pages: Pages = None) -> Iterator[str | BaseException]:
    return pypdf_pages(path, pages, "layout")


EXTRACTORS: dict[str, Extractor] = {
    "pypdfium2": pdfium_pages,
    "pypdf-plain": _pypdf_plain,
    "pypdf-layout": _pypdf_layout,
    "pdfminer.six": pdfminer_pages,
}
# Chosen by bench/pdf_bench.py (best word accuracy within 2x of the fastest); see the README's table.
DEFAULT = "pypdfium2"
FALLBACKS = ("pypdf-plain", "pdfminer.six")


def _tidy(raw: str) -> str:
    lines = [line.rstrip() for line in raw.replace("\x00", "").splitlines()]
    indent = min((len(line) - len(line.lstrip()) for line in lines if line.strip()), default=0)
    out: list[str] = []
    for line in lines:
        line = line[indent:]
        if line or (out and out[-1]):  # keep single blank lines between blocks, drop runs of them
            out.append(line)
    return "\n".join(out).strip()


# ---- the parser ------------------------------------------------------------------------------------


def parse(path: Path, limits: ParseLimits, extractor: str | None = None) -> Extracted:
    from pypdf import PdfReader
    from pypdf.errors import FileNotDecryptedError

    logging.getLogger("pypdf").setLevel(logging.ERROR)
    # The trailer may be followed by padding or junk a server or downloader appended (NULs, an HTML
    # footer); readers cope, so only a file without %%EOF near its end counts as truncated.
    with path.open("rb") as fh:
        fh.seek(0, 2)
        fh.seek(max(0, fh.tell() - _EOF_WINDOW))
        tail = fh.read()
    if b"%%EOF" not in tail:
        raise Refused("truncated PDF: no %%EOF trailer at the end of the file")
    reader = PdfReader(path, strict=False)
    if reader.is_encrypted:
        try:
            ok = reader.decrypt("")
        except (NotImplementedError, FileNotDecryptedError) as exc:
            raise Refused(f"encrypted PDF that cannot be opened: {exc}") from exc
        if not ok:
            raise Refused("encrypted PDF (a password is required to read it)")
    count = len(reader.pages)
    if count > limits.max_pages:
        raise Refused(f"PDF has {count} pages, over the cap of {limits.max_pages}")
    name = extractor or DEFAULT
    texts = _read_all(EXTRACTORS[name], path, list(range(count)))
    failed = [i for i, t in enumerate(texts) if not isinstance(t, str) or not t.strip()]
    used: dict[str, int] = {}
    for fallback in (f for f in FALLBACKS if f != name):
        if not failed:
            break
        # Only the pages still without text: a scanned page must not cost a whole-document re-read. The
        # last resort (pdfminer, slow) only gets pages that raised; blank pages twice over are blank.
        todo = failed if fallback != FALLBACKS[-1] else [i for i in failed if not isinstance(texts[i], str)]
        if not todo:
            continue
        again = _read_all(EXTRACTORS[fallback], path, todo)
        for i, got in zip(todo, again, strict=True):
            if isinstance(got, str) and got.strip():
                texts[i] = got
                used[fallback] = used.get(fallback, 0) + 1
                failed.remove(i)
    out = Extracted(pages=count, extractor=name if not used else f"{name}+{'+'.join(sorted(used))}")
    for fallback, pages in sorted(used.items()):
        out.warnings.append(f"{pages} of {count} pages had no text from {name}; read with {fallback}")
    broken = [i for i in failed if not isinstance(texts[i], str)]
    if broken and len(broken) == count:
        raise Refused(f"no page of the PDF could be read ({len(broken)} of {count} failed)")
    if broken:
        out.warnings.append(f"{len(broken)} of {count} pages could not be read by any extractor")
    blank = len(failed) - len(broken)
    if blank:
        out.warnings.append(f"{blank} of {count} pages have no text layer (images or scans; no OCR for PDFs)")
    spans: list[ParsedSpan] = []
    for number, text in enumerate(texts, start=1):
        if isinstance(text, str) and text.strip():
            spans.extend(make_spans(f"page={number}", SpanKind.PAGE, table_lines(text), limits))
    out.spans = spans
    return out


def _read_all(fn: Extractor, path: Path, pages: list[int]) -> list[str | BaseException]:
    """One entry per page in ``pages``: its text, or the exception that page (or the document) raised."""
    texts: list[str | BaseException] = []
    try:
        for text in fn(path, pages):
            texts.append(text)
            if len(texts) >= len(pages):
                break
    except (MemoryError, RecursionError):
        raise
    except Exception as exc:  # noqa: BLE001  (the extractor gave up on the document)
        texts.extend([exc] * (len(pages) - len(texts)))
    texts.extend([RuntimeError("page not returned")] * (len(pages) - len(texts)))
    return texts


def table_lines(text: str) -> str:
    """Runs of aligned lines whose cells are separated by a tab or 2+ spaces become tab-separated rows.

    A block of at least 2 consecutive lines with the same number (>= 2) of cells is a table. Single lines
    and prose are left as they are, except that a lone tab (a wide gap pdfium saw) reads as a space.
    Word boundaries are never touched.
    """
    lines = text.split("\n")
    cells = [_GAP_RE.split(line.strip()) if _GAP_RE.search(line.strip()) else None for line in lines]
    out = [line.replace("\t", " ") for line in lines]
    i = 0
    while i < len(lines):
        if cells[i] is None:
            i += 1
            continue
        j = i
        while j + 1 < len(lines) and cells[j + 1] is not None and len(cells[j + 1]) == len(cells[i]):  # type: ignore[arg-type]
            j += 1
        if j > i:
            for k in range(i, j + 1):
                out[k] = "\t".join(cells[k])  # type: ignore[arg-type]
        i = j + 1
    return "\n".join(out)

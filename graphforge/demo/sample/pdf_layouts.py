"""PDFs of known text in the layouts real documents use, for measuring PDF text extractors.

Each layout writes a PDF with reportlab and returns the words it drew, per page, in reading order:
prose (justified paragraphs), two columns, a ruled table, small dense type, text drawn rotated 90°, and a
page whose /Rotate is 90. Deterministic: the same call writes the same bytes.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from reportlab.pdfgen.canvas import Canvas

_VOCAB = (
    "agency program budget authority outlays receipts fiscal year federal office contract schedule "
    "requirement deliverable accessibility assessment revenue production royalties disbursement company "
    "reconciliation variance report summary methodology guidance policy compliance section criteria "
    "reporting entity response data dictionary milestone sprint remediation employer certificate wage "
    "review approval deadline quarter annual estimate actual difference total services hardware software "
    "training support maintenance evaluation performance measure baseline target status decision owner"
).split()

Layout = Callable[[Path, int], list[list[str]]]


def _sentences(rng: random.Random, words: int) -> list[str]:
    out: list[str] = []
    while sum(len(s.split()) for s in out) < words:
        n = rng.randint(8, 18)
        sentence = " ".join(rng.choice(_VOCAB) for _ in range(n))
        out.append(sentence[0].upper() + sentence[1:] + ".")
    return out


def _doc(path: Path) -> Canvas:
    from reportlab.lib.pagesizes import letter
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    c.setTitle("layout sample")
    return c


def prose(path: Path, pages: int = 2) -> list[list[str]]:
    from reportlab.lib.enums import TA_JUSTIFY
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.platypus import Frame, Paragraph

    rng = random.Random(1)
    c = _doc(path)
    style = ParagraphStyle("body", fontName="Helvetica", fontSize=10.5, leading=14, alignment=TA_JUSTIFY)
    known: list[list[str]] = []
    for _ in range(pages):
        paras = [" ".join(_sentences(rng, 70)) for _ in range(4)]
        frame = Frame(72, 72, 468, 648, showBoundary=0)
        frame.addFromList([Paragraph(p, style) for p in paras], c)
        known.append(" ".join(paras).split())
        c.showPage()
    c.save()
    return known


def two_column(path: Path, pages: int = 2) -> list[list[str]]:
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.platypus import Frame, Paragraph

    rng = random.Random(2)
    c = _doc(path)
    style = ParagraphStyle("col", fontName="Times-Roman", fontSize=10, leading=12.5)
    known: list[list[str]] = []
    for _ in range(pages):
        page_words: list[str] = []
        for x in (60, 318):
            paras = [" ".join(_sentences(rng, 60)) for _ in range(3)]
            Frame(x, 72, 234, 648, showBoundary=0).addFromList([Paragraph(p, style) for p in paras], c)
            page_words += " ".join(paras).split()
        known.append(page_words)
        c.showPage()
    c.save()
    return known


def table(path: Path, pages: int = 1) -> list[list[str]]:
    from reportlab.lib import colors
    from reportlab.platypus import Table, TableStyle

    rng = random.Random(3)
    c = _doc(path)
    known: list[list[str]] = []
    for _ in range(pages):
        rows = [["Segment", "Budget", "Actual", "Variance"]]
        for _ in range(18):
            budget, actual = rng.randint(100, 9999), rng.randint(100, 9999)
            rows.append([rng.choice(_VOCAB).title(), f"{budget:,}", f"{actual:,}", f"{actual - budget:,}"])
        t = Table(rows, colWidths=[150, 90, 90, 90])
        grid: list[Any] = [("GRID", (0, 0), (-1, -1), 0.5, colors.grey), ("FONTSIZE", (0, 0), (-1, -1), 10)]
        t.setStyle(TableStyle(grid))
        _, h = t.wrapOn(c, 468, 648)
        t.drawOn(c, 72, 720 - h)
        known.append([cell for row in rows for cell in row])
        c.showPage()
    c.save()
    return known


def small_type(path: Path, pages: int = 1) -> list[list[str]]:
    rng = random.Random(4)
    c = _doc(path)
    known: list[list[str]] = []
    for _ in range(pages):
        words: list[str] = []
        text = c.beginText(54, 750)
        text.setFont("Helvetica", 7)
        for _ in range(90):
            line = " ".join(rng.choice(_VOCAB) for _ in range(16))
            text.textLine(line)
            words += line.split()
        c.drawText(text)
        known.append(words)
        c.showPage()
    c.save()
    return known


def rotated_text(path: Path, pages: int = 1) -> list[list[str]]:
    """Lines drawn with the text matrix turned 90° (a landscape table set on a portrait page)."""
    rng = random.Random(5)
    c = _doc(path)
    known: list[list[str]] = []
    for _ in range(pages):
        words: list[str] = []
        c.saveState()
        c.translate(100, 72)
        c.rotate(90)
        c.setFont("Helvetica", 11)
        for i in range(20):
            line = " ".join(rng.choice(_VOCAB) for _ in range(9))
            c.drawString(0, -i * 20, line)
            words += line.split()
        c.restoreState()
        known.append(words)
        c.showPage()
    c.save()
    return known


def rotated_page(path: Path, pages: int = 1) -> list[list[str]]:
    """An ordinary page with /Rotate 90 (a scanned-landscape page)."""
    rng = random.Random(6)
    c = _doc(path)
    known: list[list[str]] = []
    for _ in range(pages):
        c.setPageRotation(90)
        c.setFont("Helvetica", 11)
        words: list[str] = []
        for i in range(25):
            line = " ".join(rng.choice(_VOCAB) for _ in range(10))
            c.drawString(72, 720 - i * 18, line)
            words += line.split()
        known.append(words)
        c.showPage()
    c.save()
    return known


def positioned_words(path: Path, pages: int = 1) -> list[list[str]]:
    """Every word drawn on its own at its x position, no space characters between them (how many
    typesetting programs write justified text): an extractor must infer word breaks from the gaps."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    rng = random.Random(7)
    c = _doc(path)
    known: list[list[str]] = []
    for _ in range(pages):
        words: list[str] = []
        for i in range(34):
            line = [rng.choice(_VOCAB) for _ in range(rng.randint(7, 10))]
            widths = [stringWidth(w, "Helvetica", 10) for w in line]
            gap = (468 - sum(widths)) / (len(line) - 1)
            gap = min(gap, 14.0)
            x = 72.0
            for word, width in zip(line, widths, strict=True):
                c.setFont("Helvetica", 10)
                c.drawString(x, 720 - i * 18, word)
                x += width + gap
            words += line
        known.append(words)
        c.showPage()
    c.save()
    return known


def _tj_lines(path: Path, pages: int, seed: int, gaps: tuple[int, int]) -> list[list[str]]:
    """Pages of 40 lines, each one TJ array whose word gaps are kerning offsets in ``gaps`` (thousandths
    of an em), not space characters; returns the words of each page."""
    rng = random.Random(seed)
    c = _doc(path)
    known: list[list[str]] = []
    for _ in range(pages):
        words: list[str] = []
        ops = ["BT /F1 10 Tf 12 TL 72 720 Td"]
        for _ in range(40):
            line = [rng.choice(_VOCAB) for _ in range(rng.randint(7, 10))]
            parts = " ".join(f"({w}) {-rng.randint(*gaps)}" for w in line[:-1]) + f" ({line[-1]})"
            ops.append(f"[{parts}] TJ T*")
            words += line
        ops.append("ET")
        c.setFont("Helvetica", 10)  # registers /F1
        c._code.append("\n".join(ops))  # type: ignore[attr-defined]
        known.append(words)
        c.showPage()
    c.save()
    return known


def kerned_runs(path: Path, pages: int = 1) -> list[list[str]]:
    """Lines written as one TJ array whose word gaps are kerning offsets, not spaces (word-processor
    exports do this): "willserve" is what a reader that ignores the offsets returns."""
    return _tj_lines(path, pages, seed=8, gaps=(150, 260))


def tight_kerning(path: Path, pages: int = 1) -> list[list[str]]:
    """Condensed justified lines: word gaps of 1.0-1.4 pt at 10 pt written as TJ offsets (narrower than
    a space glyph); pypdf and pdfium's plain text returned "willservefacilitatethe" for these."""
    return _tj_lines(path, pages, seed=10, gaps=(100, 140))


LAYOUTS: dict[str, Layout] = {
    "prose": prose,
    "two_column": two_column,
    "table": table,
    "small_type": small_type,
    "rotated_text": rotated_text,
    "rotated_page": rotated_page,
    "positioned_words": positioned_words,
    "kerned_runs": kerned_runs,
    "tight_kerning": tight_kerning,
}

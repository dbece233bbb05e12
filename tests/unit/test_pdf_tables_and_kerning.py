"""PDF text with its structure (issue 11): table rows keep their cells apart, tightly kerned words stay
apart, and neither rule touches prose, letter-spaced headings or the figures in a row.

Every PDF is drawn here with reportlab from known text; the expected lines are that text, never the
parser's own output.
"""

from __future__ import annotations

from pathlib import Path

from graphforge.demo.sample.pdf_layouts import tight_kerning
from graphforge.parsers import parse_file

ROWS = [
    ["Line item", "FY2016 budget", "FY2017 request", "Change"],
    ["Salaries and expenses", "1,204.5", "1,310.0", "+105.5"],
    ["Grants to states", "880.0", "865.25", "-14.75"],
    ["Information technology", "96.3", "121.8", "+25.5"],
]
INTRO = "Table 3 compares the request with the enacted budget, in millions of dollars."
OUTRO = "Totals may not add because of rounding."


def _table_pdf(path: Path) -> None:
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import letter
    from reportlab.pdfgen import canvas
    from reportlab.platypus import Table, TableStyle

    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    c.setFont("Helvetica", 10)
    c.drawString(72, 740, INTRO)
    table = Table(ROWS, colWidths=[170, 100, 100, 70])
    table.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.grey),
                               ("FONTSIZE", (0, 0), (-1, -1), 10)]))
    _, height = table.wrapOn(c, 468, 600)
    table.drawOn(c, 72, 725 - height)
    c.setFont("Helvetica", 10)
    c.drawString(72, 700 - height, OUTRO)
    c.showPage()
    c.save()


def test_pdf_table_rows_are_tab_separated_cells_and_prose_around_them_is_untouched(tmp_path: Path) -> None:
    path = tmp_path / "budget_table.pdf"
    _table_pdf(path)
    parsed = parse_file(path)
    assert parsed.valid, parsed.invalid_reason
    lines = parsed.spans[0].text.splitlines()
    # Cells that hold spaces ("Line item", "FY2016 budget") stay whole: only the cell gaps become tabs.
    assert lines == [INTRO] + ["\t".join(row) for row in ROWS] + [OUTRO]


def test_pdf_tightly_kerned_words_are_kept_apart(tmp_path: Path) -> None:
    path = tmp_path / "condensed.pdf"
    known = tight_kerning(path)  # word gaps are 1.0-1.4 pt TJ offsets, no space characters
    parsed = parse_file(path)
    assert parsed.valid, parsed.invalid_reason
    got = " ".join(s.text for s in parsed.spans).split()
    assert got == known[0]


def test_letter_spaced_heading_and_justified_prose_keep_their_words(tmp_path: Path) -> None:
    from reportlab.lib.pagesizes import letter
    from reportlab.pdfgen import canvas

    path = tmp_path / "heading.pdf"
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    text = c.beginText(72, 720)
    text.setFont("Helvetica-Bold", 14)
    text.setCharSpace(2.5)  # tracked heading: every letter gap is wide, none is a word space
    text.textLine("ACCESSIBILITY ASSESSMENT")
    text.setCharSpace(0)
    text.setFont("Helvetica", 10)
    text.setWordSpace(4)  # justified line: wide word gaps, still one row of prose, not a table
    text.textLine("Remediation milestones were reviewed by the agency accessibility program office.")
    c.drawText(text)
    c.showPage()
    c.save()
    parsed = parse_file(path)
    assert parsed.valid, parsed.invalid_reason
    assert parsed.spans[0].text.splitlines() == [
        "ACCESSIBILITY ASSESSMENT",
        "Remediation milestones were reviewed by the agency accessibility program office.",
    ]

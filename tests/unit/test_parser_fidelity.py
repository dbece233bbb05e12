"""Parsing that keeps the content (issue 11 items 1-2, issue 14 item 2 for parsers): every case is a file
generated here that the parsers got wrong before (lost, cut, glued, misdetected, or a crash)."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from graphforge.demo.sample.broken_files import far_cell_sheet
from graphforge.demo.sample.pdf_layouts import kerned_runs, positioned_words, rotated_text
from graphforge.models.workspace import FileFormat, SpanKind
from graphforge.parsers import ParseLimits, ParseTask, detect_format, parse_file, parse_files


def _spans(path: Path, limits: ParseLimits | None = None) -> dict[str, str]:
    parsed = parse_file(path, limits)
    assert parsed.valid, parsed.invalid_reason
    return {s.locator: s.text for s in parsed.spans}


# ---- detection -------------------------------------------------------------------------------------


def test_csv_with_long_multiline_quoted_fields_is_csv_not_markdown(tmp_path: Path) -> None:
    notes = "\n".join(["# Findings", "- item one, with a comma", "- item two", "## Next steps"] * 60)
    rows = [["id", "agency", "notes"]] + [[str(i), f"Agency {i}", notes] for i in range(1, 4)]
    buf = io.StringIO()
    import csv

    csv.writer(buf, lineterminator="\r\n").writerows(rows)
    path = tmp_path / "responses_export"  # no extension: the bytes decide
    path.write_text(buf.getvalue(), encoding="utf-8")
    assert detect_format(path).format is FileFormat.CSV
    parsed = parse_file(path)
    assert parsed.valid and parsed.format is FileFormat.CSV
    rows_seen = sorted({s.locator.split(";")[0] for s in parsed.spans})
    assert rows_seen == ["row=1", "row=2", "row=3", "row=4"]
    first = "".join(s.text for s in parsed.spans if s.locator.startswith("row=2"))
    assert first.startswith("1\tAgency 1\t# Findings - item one, with a comma")


def test_markdown_list_with_commas_stays_markdown(tmp_path: Path) -> None:
    path = tmp_path / "notes"
    path.write_text(
        "# Plan\n\n- first, second\n- third, fourth\n- fifth, sixth\n\n## Risks\n- late, costly\n"
    )
    assert detect_format(path).format is FileFormat.MARKDOWN


@pytest.mark.parametrize(
    ("name", "data", "says"),
    [
        ("report.pdf", b"oops\n", "content is text, not PDF"),
        ("ledger.xlsx", b"date,amount\n2024-01-01,5\n2024-01-02,6\n", "content is CSV text, not XLSX"),
        ("memo.docx", b"%PDF-1.4\n%%EOF\n", "content is PDF, not DOCX"),
        ("photo.png", b"<html><body>x</body></html>", "content is HTML, not an image"),
    ],
)
def test_a_name_that_promises_a_binary_format_over_other_bytes_is_invalid(
    tmp_path: Path, name: str, data: bytes, says: str
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    parsed = parse_file(path)
    assert not parsed.valid and parsed.spans == []
    assert says in (parsed.invalid_reason or ""), parsed.invalid_reason


def test_docx_bytes_named_xlsx_say_so(tmp_path: Path) -> None:
    from docx import Document

    doc = Document()
    doc.add_paragraph("hello")
    doc.save(str(tmp_path / "budget.xlsx"))
    parsed = parse_file(tmp_path / "budget.xlsx")
    assert not parsed.valid and "content is DOCX, not XLSX" in (parsed.invalid_reason or "")


def test_deeply_nested_json_is_a_refusal_not_a_crash_in_worker_or_parent(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 200_000 + "]" * 200_000)
    detect_format(path)  # raised RecursionError (the parent's re-detection after a worker failed)
    parsed = parse_file(path)
    assert not parsed.valid and parsed.invalid_reason
    [(_, record)] = list(parse_files([ParseTask(path, "0" * 64, path.stat().st_size)], jobs=1))
    assert not record.valid and record.invalid_reason


def test_parent_records_a_failed_worker_even_when_detection_would_raise(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("{" * 1 + '"a":' + "[" * 200_000 + "]" * 200_000 + "}")
    [(_, record)] = list(
        parse_files([ParseTask(path, "0" * 64, path.stat().st_size)], jobs=1, target=raising_target)
    )
    assert not record.valid and "parser failed" in (record.invalid_reason or "")


def raising_target(path: Path, limits: ParseLimits, *, sha256: str, size: int) -> object:
    raise RecursionError("maximum recursion depth exceeded")


# ---- no silent caps ---------------------------------------------------------------------------------


def test_long_docx_paragraph_and_table_are_split_never_cut(tmp_path: Path) -> None:
    from docx import Document

    doc = Document()
    doc.add_heading("Scope", level=1)
    long_text = " ".join(f"Requirement {i} applies to every reporting entity." for i in range(900))  # ~46k
    doc.add_paragraph(long_text)
    table = doc.add_table(rows=1, cols=3)
    for cell, text in zip(table.rows[0].cells, ["Agency", "Score", "Notes"], strict=True):
        cell.text = text
    for i in range(600):
        row = table.add_row().cells
        row[0].text, row[1].text, row[2].text = f"Agency {i}", str(i), "reviewed and accepted " * 3
    doc.save(str(tmp_path / "policy.docx"))
    parsed = parse_file(tmp_path / "policy.docx")
    assert parsed.valid and parsed.dropped_chars == 0
    joined = "\n".join(s.text for s in parsed.spans)
    assert "more characters cut" not in joined
    para_parts = [s.text for s in parsed.spans if s.locator.startswith("para=2;part=")]
    assert len(para_parts) >= 3 and all(len(p) <= 20_000 for p in para_parts)
    assert " ".join(para_parts) == long_text
    table_parts = [s for s in parsed.spans if s.locator.startswith("table=1;part=")]
    assert len(table_parts) >= 2
    assert all(p.text.splitlines()[0] == "Agency\tScore\tNotes" for p in table_parts)  # header repeated
    data_rows = [line for p in table_parts for line in p.text.splitlines()[1:]]
    assert len(data_rows) == 600 and data_rows[-1].startswith("Agency 599\t599\t")


def test_span_cap_is_a_setting(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("word " * 2_000)
    parsed = parse_file(path, ParseLimits(max_span_chars=1_000))
    assert len(parsed.spans) >= 10 and all(len(s.text) <= 1_000 for s in parsed.spans)
    assert sum(len(s.text.split()) for s in parsed.spans) == 2_000


def test_csv_over_the_row_cap_is_valid_with_the_rows_dropped_counted(tmp_path: Path) -> None:
    path = tmp_path / "big.csv"
    path.write_text("id,value\n" + "".join(f"{i},{i * 2}\n" for i in range(1, 51)))
    parsed = parse_file(path, ParseLimits(max_rows=20))
    assert parsed.valid and len(parsed.spans) == 20
    assert parsed.dropped_rows == 31 and parsed.dropped_chars > 0
    assert parsed.warnings and "31 rows" in parsed.warnings[0]


# ---- XML ---------------------------------------------------------------------------------------------

_OSCAL = """<?xml version="1.0" encoding="UTF-8"?>
<catalog xmlns="http://csrc.nist.gov/ns/oscal/1.0" uuid="c1">
  <metadata><title>Sample Control Catalog</title><version>1.2</version></metadata>
  <group id="ac" class="family">
    <title>Access Control</title>
    <control id="ac-1" class="SP800-53">
      <title>Policy and Procedures</title>
      <part id="ac-1_smt" name="statement"><p>Develop, document, and <em>disseminate</em> an access control
      policy.</p></part>
    </control>
    <control id="ac-2" class="SP800-53">
      <title>Account Management</title>
      <part id="ac-2_smt" name="statement"><p>Define and document the types of accounts allowed.</p></part>
    </control>
  </group>
</catalog>
"""


def test_xml_of_any_schema_becomes_element_path_spans(tmp_path: Path) -> None:
    path = tmp_path / "catalog.xml"
    path.write_text(_OSCAL, encoding="utf-8")
    parsed = parse_file(path, ParseLimits(max_span_chars=300))
    assert parsed.valid and parsed.format is FileFormat.XML
    spans = {s.locator: s for s in parsed.spans}
    control = spans["element=/catalog/group[1]/control[2]"]
    assert control.kind is SpanKind.ELEMENT
    assert control.text.splitlines()[0] == "control [id=ac-2, class=SP800-53]"
    assert "  title: Account Management" in control.text.splitlines()
    first = spans["element=/catalog/group[1]/control[1]"].text
    assert "p: Develop, document, and disseminate an access control policy." in first


def test_xml_entity_declarations_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "bomb.xml"
    path.write_text(
        '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]><r>&b;</r>'
    )
    parsed = parse_file(path)
    assert not parsed.valid and "entities" in (parsed.invalid_reason or "")


def test_deeply_nested_xml_is_read_without_recursion(tmp_path: Path) -> None:
    path = tmp_path / "deep.xml"
    path.write_text("<a>" * 50_000 + "deep" + "</a>" * 50_000)
    parsed = parse_file(path)
    assert parsed.valid, parsed.invalid_reason
    assert any("deep" in s.text for s in parsed.spans)


# ---- spreadsheets --------------------------------------------------------------------------------------


def test_workbook_declaring_the_whole_grid_with_four_values_loads(tmp_path: Path) -> None:
    path = tmp_path / "far.xlsx"
    path.write_bytes(far_cell_sheet())
    spans = _spans(path, ParseLimits(max_rows=100_000))
    assert spans == {
        "sheet=Data!A1:B1": "1\t10",
        "sheet=Data!A2:B2": "2\t20",
        "sheet=Data!A3:B3": "3\t30",
        "sheet=Data!A1048576:A1048576": "1",
    }


def test_formula_only_template_rows_are_not_spans_but_their_formulas_stay(tmp_path: Path) -> None:
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    assert ws is not None
    ws.title = "Form"
    ws.append(["Item", "Qty", "Price", "Amount"])
    ws.append(["Laptops", 3, 1200, "=B2*C2"])
    for r in range(3, 4003):
        ws.append([None, None, None, f'=IF(B{r}="","",B{r}*C{r})'])
    wb.save(tmp_path / "form.xlsx")
    parsed = parse_file(tmp_path / "form.xlsx")
    assert parsed.valid
    assert [s.locator for s in parsed.spans] == ["sheet=Form!A1:D1", "sheet=Form!A2:D2"]
    formulas = json.loads(parsed.formulas_json)
    assert len(formulas) == 4000 and formulas["Form!D4002"] == '=IF(B4002="","",B4002*C4002)'
    assert any("4000 rows hold formulas but no values" in w for w in parsed.warnings)


# ---- PDF ----------------------------------------------------------------------------------------------


def test_pdf_word_boundaries_survive_kerned_and_positioned_text(tmp_path: Path) -> None:
    for make in (kerned_runs, positioned_words):
        path = tmp_path / f"{make.__name__}.pdf"
        known = make(path)
        parsed = parse_file(path)
        assert parsed.valid
        got = " ".join(s.text for s in parsed.spans).split()
        assert got == known[0], make.__name__


def test_rotated_text_pdf_has_spans_even_when_the_extractor_returns_nothing(tmp_path: Path) -> None:
    from graphforge.parsers import pdf

    path = tmp_path / "rotated.pdf"
    known = rotated_text(path)
    # pypdf's layout mode (the former default) returns nothing for this page; the fallback reads it.
    out = pdf.parse(path, ParseLimits(), extractor="pypdf-layout")
    assert [s.locator for s in out.spans] == ["page=1"]
    assert out.spans[0].text.split() == known[0]
    assert out.warnings == ["1 of 1 pages had no text from pypdf-layout; read with pypdf-plain"]
    parsed = parse_file(path)
    assert parsed.valid and parsed.spans and parsed.spans[0].text.split() == known[0]


def test_pdf_table_rows_become_tab_separated_lines() -> None:
    from graphforge.parsers.pdf import table_lines

    text = (
        "Revenue by segment\nSegment    Q1 2024    Q2 2024\nServices   1,340      1,415\n"
        "Hardware   905        960\nA note."
    )
    assert table_lines(text).splitlines() == [
        "Revenue by segment",
        "Segment\tQ1 2024\tQ2 2024",
        "Services\t1,340\t1,415",
        "Hardware\t905\t960",
        "A note.",
    ]


# ---- images -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["PNG", "JPEG"])
def test_images_are_recorded_with_their_size(tmp_path: Path, fmt: str) -> None:
    from PIL import Image

    path = tmp_path / f"chart.{fmt.lower()}"
    Image.new("RGB", (321, 123), "white").save(path, format=fmt)
    parsed = parse_file(path, ParseLimits(ocr=False))
    assert parsed.valid and parsed.format is FileFormat.IMAGE
    assert (parsed.width, parsed.height) == (321, 123)


# ---- structure in span text (the contract the evidence extractor reads) ---------------------------------


def test_docx_headings_are_markdown_headings_and_tables_tab_rows(tmp_path: Path) -> None:
    from docx import Document

    doc = Document()
    doc.add_heading("Annual Assessment", level=0)  # Title style
    doc.add_heading("1. Scope", level=1)
    doc.add_paragraph("Agencies must report by 30 September.")
    doc.add_heading("1.1 Criteria", level=2)
    table = doc.add_table(rows=2, cols=2)
    table.rows[0].cells[0].text, table.rows[0].cells[1].text = "Criterion", "Weight"
    table.rows[1].cells[0].text, table.rows[1].cells[1].text = "Testing\ncoverage", "40%"
    doc.save(str(tmp_path / "a.docx"))
    spans = _spans(tmp_path / "a.docx")
    assert spans == {
        "para=1": "# Annual Assessment",
        "para=2": "# 1. Scope",
        "para=3": "Agencies must report by 30 September.",
        "para=4": "## 1.1 Criteria",
        "table=1": "Criterion\tWeight\nTesting coverage\t40%",
    }


def test_html_headings_are_markdown_headings(tmp_path: Path) -> None:
    path = tmp_path / "p.html"
    path.write_text(
        "<html><body><h1>Policy</h1><p>Intro.</p><h3>Scope  of\nwork</h3><p>Text.</p>"
        "<table><tr><th>Item</th><th>Due</th></tr><tr><td>Plan</td><td>2024-09-30</td></tr></table>"
        "</body></html>"
    )
    spans = _spans(path)
    assert spans["section=1"] == "# Policy\nIntro."
    assert spans["section=2"] == "### Scope of work\nText.\nItem\tDue\nPlan\t2024-09-30"


def test_pptx_slide_title_is_the_first_line_as_a_heading(tmp_path: Path) -> None:
    from pptx import Presentation

    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[1])  # title and content
    slide.shapes.title.text = "FY24 Results"
    slide.placeholders[1].text = "Scores rose 12%"
    prs.save(str(tmp_path / "d.pptx"))
    assert _spans(tmp_path / "d.pptx") == {"slide=1": "# FY24 Results\nScores rose 12%"}


def test_zip_with_office_member_but_named_zip_still_detected_by_content(tmp_path: Path) -> None:
    # The extension breaks no tie here: only names that promise a format are held to it.
    from docx import Document

    doc = Document()
    doc.add_paragraph("hello")
    doc.save(str(tmp_path / "memo.bin"))
    assert detect_format(tmp_path / "memo.bin").format is FileFormat.DOCX
    with zipfile.ZipFile(tmp_path / "memo.bin") as zf:
        assert "word/document.xml" in zf.namelist()


def test_wide_export_with_multiline_header_names_is_csv_not_text(tmp_path: Path) -> None:
    # Like the FY23/FY24 assessment exports: two quoted header names end in a line break, then 1,500
    # plain columns; read line by line the field counts disagree, and the file became plain text.
    import csv

    header = ["Reporting Entity Name", "Maturity Bracket\n", "Conformance Bracket \n"]
    header += [f"Measure {i}, calculation" for i in range(1500)]
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")
    writer.writerow(header)
    for r in range(40):
        writer.writerow([f"Agency {r}", "Moderate", "High"] + ["N/A"] * 1500)
    path = tmp_path / "Response Data.csv"
    path.write_text(buf.getvalue(), encoding="utf-8")
    assert detect_format(path).format is FileFormat.CSV
    parsed = parse_file(path)
    assert {s.locator.split(";")[0] for s in parsed.spans} == {f"row={n}" for n in range(1, 42)}


def test_image_text_by_ocr_when_tesseract_is_installed_else_a_warning(tmp_path: Path) -> None:
    import shutil

    from PIL import Image, ImageDraw, ImageFont

    lines = ["Quarterly accessibility assessment", "Conformance rose to 72 percent"]
    img = Image.new("RGB", (900, 160), "white")
    draw = ImageDraw.Draw(img)
    try:
        font: ImageFont.FreeTypeFont | ImageFont.ImageFont = ImageFont.truetype("DejaVuSans.ttf", 26)
    except OSError:
        font = ImageFont.load_default(size=26)
    for i, line in enumerate(lines):
        draw.text((20, 20 + i * 60), line, fill="black", font=font)
    path = tmp_path / "slide.png"
    img.save(path)
    parsed = parse_file(path)
    assert parsed.valid and (parsed.width, parsed.height) == (900, 160)
    if shutil.which("tesseract") is None:
        assert parsed.spans == [] and parsed.warnings == [
            "image text not extracted: no OCR engine installed (tesseract)"
        ]
    else:
        assert [s.locator for s in parsed.spans] == ["image=1"]
        got = parsed.spans[0].text.split()
        assert got == " ".join(lines).split(), got

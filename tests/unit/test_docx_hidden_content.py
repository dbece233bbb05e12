"""DOCX content outside the body's plain paragraphs (issue 11, "parsing that keeps the content"): text
boxes, headers and footers, and tables nested in a table cell were dropped while the file was valid."""

from __future__ import annotations

from pathlib import Path

from graphforge.parsers import parse_file

_NS = (
    'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
    'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
    'xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" '
    'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" '
    'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:v="urn:schemas-microsoft-com:vml"'
)


def _text_box_run(text: str) -> object:
    """A run holding a text box as Word 2010+ writes it: DrawingML, with a VML fallback of the same text."""
    from docx.oxml import parse_xml

    para = f"<w:txbxContent><w:p><w:r><w:t>{text}</w:t></w:r></w:p></w:txbxContent>"
    return parse_xml(
        f"<w:r {_NS}><mc:AlternateContent><mc:Choice Requires=\"wps\"><w:drawing><wp:anchor>"
        '<wp:extent cx="1" cy="1"/><wp:docPr id="1" name="Text Box 1"/><a:graphic><a:graphicData '
        'uri="http://schemas.microsoft.com/office/word/2010/wordprocessingShape"><wps:wsp><wps:txbx>'
        f"{para}</wps:txbx></wps:wsp></a:graphicData></a:graphic></wp:anchor></w:drawing></mc:Choice>"
        f"<mc:Fallback><w:pict><v:shape><v:textbox>{para}</v:textbox></v:shape></w:pict></mc:Fallback>"
        "</mc:AlternateContent></w:r>"
    )


def test_text_boxes_headers_footers_and_nested_tables_are_spans(tmp_path: Path) -> None:
    from docx import Document

    doc = Document()
    doc.sections[0].header.paragraphs[0].text = "Contract GS-35F-0119Y, revision 3"
    doc.sections[0].footer.paragraphs[0].text = "Prepared by Brightwater Instruments, March 2024"
    doc.add_paragraph("Revenue summary for the first half.")
    holder = doc.add_paragraph()  # a paragraph with no text of its own, only the text box
    holder._p.append(_text_box_run("Key figure: revenue rose 12% to $4.2M"))
    doc.add_paragraph("Details follow.")
    table = doc.add_table(rows=1, cols=2)
    table.rows[0].cells[0].text = "Region totals"
    inner = table.rows[0].cells[1].add_table(rows=2, cols=2)
    for r, row in enumerate([["North", "1,200"], ["South", "950"]]):
        for c, value in enumerate(row):
            inner.rows[r].cells[c].text = value
    path = tmp_path / "summary.docx"
    doc.save(str(path))

    parsed = parse_file(path)
    assert parsed.valid, parsed.invalid_reason
    spans = [(s.locator, s.text) for s in parsed.spans]
    assert spans == [
        ("para=1", "Revenue summary for the first half."),
        ("textbox=1", "Key figure: revenue rose 12% to $4.2M"),  # once: the VML fallback is a copy
        ("para=2", "Details follow."),
        ("table=1", "Region totals\tNorth | 1,200; South | 950"),
        ("header=1", "Contract GS-35F-0119Y, revision 3"),
        ("footer=1", "Prepared by Brightwater Instruments, March 2024"),
    ]


def test_linked_headers_of_later_sections_are_not_repeated(tmp_path: Path) -> None:
    from docx import Document
    from docx.enum.section import WD_SECTION

    doc = Document()
    doc.sections[0].header.paragraphs[0].text = "Quarterly report"
    doc.add_paragraph("Part one.")
    doc.add_section(WD_SECTION.NEW_PAGE)  # its header is linked to the first section's
    doc.add_paragraph("Part two.")
    path = tmp_path / "two_sections.docx"
    doc.save(str(path))
    parsed = parse_file(path)
    assert [s.locator for s in parsed.spans] == ["para=1", "para=2", "header=1"]

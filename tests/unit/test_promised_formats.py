"""Magic-number honesty beyond the formats GraphForge reads (issue 11 item 2): a name that promises any
binary format (legacy Office, OpenDocument, zip, other images, macro-enabled and template OOXML) over
text bytes is invalid with "content is X, not Y", never stored as text."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphforge.parsers import parse_file


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("budget.xls", "not XLS"),
        ("memo.doc", "not DOC"),
        ("deck.ppt", "not PPT"),
        ("minutes.odt", "not ODT"),
        ("figures.ods", "not ODS"),
        ("slides.odp", "not ODP"),
        ("evidence.zip", "not a zip archive"),
        ("chart.gif", "not an image"),
        ("scan.tif", "not an image"),
        ("scan.tiff", "not an image"),
        ("macro.docm", "not DOCX"),
        ("model.xltx", "not XLSX"),
        ("talk.pptm", "not PPTX"),
    ],
)
def test_text_named_as_any_binary_format_is_invalid(tmp_path: Path, name: str, says: str) -> None:
    path = tmp_path / name
    path.write_bytes(b"oops\n")
    parsed = parse_file(path)
    assert not parsed.valid and parsed.spans == [], name
    assert f"content is text, {says} (the name says {path.suffix})" in (parsed.invalid_reason or ""), (
        parsed.invalid_reason)


def test_a_real_legacy_workbook_keeps_its_own_reason(tmp_path: Path) -> None:
    # An OLE compound file header (what .xls/.doc/.ppt files start with): unsupported, said as such.
    path = tmp_path / "old.xls"
    path.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 1024)
    parsed = parse_file(path)
    assert not parsed.valid and "legacy binary Office format" in (parsed.invalid_reason or "")


def test_a_docx_named_zip_is_still_read_by_its_content(tmp_path: Path) -> None:
    from docx import Document

    doc = Document()
    doc.add_paragraph("Quarterly revenue rose.")
    doc.save(str(tmp_path / "export.zip"))
    parsed = parse_file(tmp_path / "export.zip")
    assert parsed.valid and "Quarterly revenue rose." in " ".join(s.text for s in parsed.spans)

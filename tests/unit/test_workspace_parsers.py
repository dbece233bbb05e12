"""Format detection from content, one parser per format, and every broken or hostile kind of file."""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from pathlib import Path

import pytest

from graphforge.demo.sample.broken_files import EXPECTED_REASONS, small_sheet_with_lying_dimension
from graphforge.demo.sample.workspace import (
    PATHS,
    SampleWorkspace,
    generate_broken_files,
    generate_sample_workspace,
)
from graphforge.models.workspace import FileFormat, SpanKind
from graphforge.parsers import ParseLimits, ParseTask, detect_format, file_digest, parse_file, parse_files


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> SampleWorkspace:
    return generate_sample_workspace(tmp_path_factory.mktemp("sample"))


@pytest.fixture(scope="module")
def broken(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generate_broken_files(tmp_path_factory.mktemp("broken")).root


def _spans(path: Path) -> dict[str, str]:
    parsed = parse_file(path)
    assert parsed.valid, parsed.invalid_reason
    return {s.locator: s.text for s in parsed.spans}


def _digests(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_sample_and_broken_files_are_byte_identical_across_runs(tmp_path: Path) -> None:
    generate_sample_workspace(tmp_path / "a")
    generate_broken_files(tmp_path / "a" / "broken")
    time.sleep(1.1)  # zip members and PDF dates would differ by a second if anything took the clock
    generate_sample_workspace(tmp_path / "b")
    generate_broken_files(tmp_path / "b" / "broken")
    assert _digests(tmp_path / "a") == _digests(tmp_path / "b")


def test_ground_truth_stays_outside_the_workspace(sample: SampleWorkspace) -> None:
    assert not sample.truth.is_relative_to(sample.root)
    truth = json.loads(sample.truth.read_text())
    assert truth["revenue"]["Q2 2024"]["Total"] == sum(
        v for k, v in truth["revenue"]["Q2 2024"].items() if k != "Total"
    )
    assert truth["confuser"]["revenue_q2_2024"]["Total"] != truth["revenue"]["Q2 2024"]["Total"]


@pytest.mark.parametrize(
    ("key", "fmt"),
    [
        ("report", FileFormat.PDF),
        ("ledger", FileFormat.XLSX),
        ("memo", FileFormat.DOCX),
        ("slides", FileFormat.PPTX),
        ("csv", FileFormat.CSV),
        ("press", FileFormat.HTML),
        ("notes", FileFormat.MARKDOWN),
        ("ambient", FileFormat.TEXT),
    ],
)
def test_format_is_detected_from_content_not_the_extension(
    sample: SampleWorkspace, tmp_path: Path, key: str, fmt: FileFormat
) -> None:
    disguised = tmp_path / "download.bin"
    shutil.copy(sample.root / PATHS[key], disguised)
    assert detect_format(disguised).format is fmt
    assert parse_file(disguised).format is fmt


def test_detects_json_images_and_unknown_binaries(tmp_path: Path) -> None:
    (tmp_path / "a").write_text('{"revenue": 9115}')
    from PIL import Image

    Image.new("RGB", (640, 360), "white").save(tmp_path / "b", format="PNG")
    (tmp_path / "c").write_bytes(bytes(range(256)) * 4)
    assert detect_format(tmp_path / "a").format is FileFormat.JSON
    image = parse_file(tmp_path / "b", ParseLimits(ocr=False))
    assert image.format is FileFormat.IMAGE and image.valid and image.spans == []
    assert (image.width, image.height) == (640, 360)
    unknown = parse_file(tmp_path / "c")
    assert not unknown.valid and "unsupported binary" in (unknown.invalid_reason or "")


def test_pdf_pages_keep_table_rows_on_one_line(sample: SampleWorkspace) -> None:
    spans = _spans(sample.root / PATHS["report"])
    assert list(spans) == ["page=1", "page=2", "page=3"]
    services = [line.split() for line in spans["page=3"].splitlines() if line.strip().startswith("Services")]
    assert services == [["Services", "905", "960", "1,865"]]


def test_xlsx_rows_carry_cached_values_and_formulas(sample: SampleWorkspace) -> None:
    parsed = parse_file(sample.root / PATHS["ledger"])
    by_locator = {s.locator: s for s in parsed.spans}
    total = by_locator["sheet=Q2!A6:D6"]
    assert total.kind is SpanKind.CELL_RANGE
    assert total.text.split("\t") == ["Total", "9115", "6775", "2340"]
    assert json.loads(total.formulas_json) == {"B6": "=SUM(B3:B5)", "C6": "=SUM(C3:C5)", "D6": "=SUM(D3:D5)"}
    assert json.loads(by_locator["sheet=H1!A3:D3"].formulas_json)["B3"] == "=Q1!B3"
    assert by_locator["sheet=Q1!A2:D2"].formulas_json == ""
    assert parsed.page_count == 3  # sheets


def test_xlsx_keeps_empty_cells_so_columns_line_up(tmp_path: Path) -> None:
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    assert ws is not None
    ws.title = "Q2 Sales"
    ws.append(["Segment", "Q1", "Q2"])
    ws.append(["Services", None, 1415])
    wb.save(tmp_path / "gap.xlsx")
    spans = _spans(tmp_path / "gap.xlsx")
    assert spans["sheet='Q2 Sales'!A2:C2"] == "Services\t\t1415"


def test_xlsx_dimension_that_claims_the_whole_grid_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "lying.xlsx"
    path.write_bytes(small_sheet_with_lying_dimension())
    assert _spans(path) == {"sheet=Data!A1:B1": "1\t2", "sheet=Data!A2:B2": "3\t4"}


def test_docx_paragraphs_and_tables_in_body_order(sample: SampleWorkspace) -> None:
    parsed = parse_file(sample.root / PATHS["memo"])
    locators = [s.locator for s in parsed.spans]
    assert locators.index("table=1") == len(locators) - 2  # the table sits before the closing paragraph
    table = next(s for s in parsed.spans if s.locator == "table=1")
    assert table.text.splitlines()[0] == "Metric\tQ1 2024\tQ2 2024"
    assert "Revenue\t8,425\t9,115" in table.text.splitlines()
    assert any("late accrual" in s.text for s in parsed.spans if s.kind is SpanKind.PARAGRAPH)


def test_pptx_slides_include_tables_and_notes(sample: SampleWorkspace) -> None:
    spans = _spans(sample.root / PATHS["slides"])
    assert list(spans) == ["slide=1", "slide=2", "slide=3"]
    assert "Revenue\t8,425\t9,115" in spans["slide=2"]
    assert "Notes: Speaker note" in spans["slide=3"]


def test_csv_html_markdown_text_spans(sample: SampleWorkspace) -> None:
    csv_spans = _spans(sample.root / PATHS["csv"])
    assert csv_spans["row=1"] == "quarter\tsegment\trevenue_eur_k\tcosts_eur_k"
    assert csv_spans["row=7"] == "Q2 2024\tServices\t1415\t975"
    html = _spans(sample.root / PATHS["press"])
    assert html["section=2"].splitlines()[0] == "## Revenue by segment, Q2 2024 (EUR thousand)"
    assert "Services\t1,415" in html["section=2"].splitlines()
    notes = _spans(sample.root / PATHS["notes"])
    assert notes["section=2"].startswith("## Services margin")
    text = _spans(sample.root / PATHS["ambient"])
    assert text["section=1"] == "Office relocation notice"


def test_markdown_heading_inside_code_fence_does_not_split(tmp_path: Path) -> None:
    (tmp_path / "n.md").write_text("# Title\n\n```\n# not a heading\n```\n\n## Next\ntext\n")
    assert list(_spans(tmp_path / "n.md")) == ["section=1", "section=2"]


@pytest.mark.parametrize("name", sorted(set(EXPECTED_REASONS) - {"hangs_parser.pdf"}))
def test_every_broken_kind_is_invalid_with_its_reason(broken: Path, name: str) -> None:
    parsed = parse_file(broken / name, ParseLimits(max_file_bytes=1024 * 1024))
    assert not parsed.valid and parsed.spans == []
    assert EXPECTED_REASONS[name] in (parsed.invalid_reason or ""), parsed.invalid_reason
    assert parsed.sha256 == file_digest(broken / name)[0]


def test_zip_member_count_and_expansion_caps(sample: SampleWorkspace) -> None:
    parsed = parse_file(sample.root / PATHS["memo"], ParseLimits(max_zip_members=3))
    assert not parsed.valid and "members, over the cap" in (parsed.invalid_reason or "")
    parsed = parse_file(sample.root / PATHS["ledger"], ParseLimits(max_unzipped_bytes=1000))
    assert not parsed.valid and "expands to" in (parsed.invalid_reason or "")


def test_unreadable_path_raises_source_format_error(tmp_path: Path) -> None:
    from graphforge.errors import SourceFormatError

    with pytest.raises(SourceFormatError):
        parse_file(tmp_path / "missing.pdf")


# ---- worker pool ---------------------------------------------------------------------------------


def sleepy_target(path: Path, limits: ParseLimits, *, sha256: str, size: int) -> object:
    """A parser that hangs on files named 'hang*' (module level: workers import it by name)."""
    if path.name.startswith("hang"):
        time.sleep(600)
    if path.name.startswith("crash"):
        import os

        os._exit(3)
    return parse_file(path, limits, sha256=sha256, size=size)


def _tasks(paths: list[Path]) -> list[ParseTask]:
    return [ParseTask(p, *file_digest(p), format_hint="text") for p in paths]


def test_pool_kills_a_hung_parser_and_carries_on(tmp_path: Path) -> None:
    names = ["a.txt", "hang.txt", "b.txt", "crash.txt", "c.txt"]
    for name in names:
        (tmp_path / name).write_text(f"content of {name}\n")
    results = dict(
        parse_files(_tasks([tmp_path / n for n in names]), timeout_s=1.0, jobs=2, target=sleepy_target)
    )
    assert sorted(results) == list(range(len(names)))
    reasons = {names[i]: r.invalid_reason for i, r in results.items()}
    assert "timed out after 1s" in (reasons["hang.txt"] or "")
    assert "process died (exit code 3)" in (reasons["crash.txt"] or "")
    assert all(results[i].valid for i, n in enumerate(names) if n in {"a.txt", "b.txt", "c.txt"})


def test_pool_times_out_the_slow_pdf(broken: Path) -> None:
    path = broken / "hangs_parser.pdf"
    [(index, parsed)] = list(parse_files(_tasks([path]), timeout_s=1.0, jobs=1))
    assert index == 0 and not parsed.valid and "timed out" in (parsed.invalid_reason or "")


def test_timed_out_file_without_a_hint_is_recorded_with_its_detected_format(broken: Path) -> None:
    path = broken / "hangs_parser.pdf"
    [(_, parsed)] = list(parse_files([ParseTask(path, *file_digest(path))], timeout_s=1.0, jobs=1))
    assert not parsed.valid and parsed.format is FileFormat.PDF


def test_json_lone_surrogate_escape_becomes_a_replacement_character(tmp_path: Path) -> None:
    # json.loads accepts "\ud800"; a lone surrogate cannot be UTF-8 encoded, so the Bolt write would fail.
    path = tmp_path / "export.json"
    path.write_text('{"name": "caf\\ud800", "revenue": 1340}', encoding="ascii")
    parsed = parse_file(path)
    assert parsed.valid, parsed.invalid_reason
    for span in parsed.spans:
        span.text.encode("utf-8")  # raises UnicodeEncodeError on a surrogate
    assert any("caf\ufffd" in s.text for s in parsed.spans)


def test_windows_1252_csv_keeps_euro_signs_and_semicolons(tmp_path: Path) -> None:
    path = tmp_path / "ledger.csv"
    path.write_bytes("Posten;Betrag\r\nUmsatz;€ 1.340\r\nKosten;€ 415\r\n".encode("cp1252"))
    spans = _spans(path)
    assert spans["row=2"] == "Umsatz\t€ 1.340"
    assert not any("\x80" in text for text in spans.values())


def test_utf8_bom_csv_header_has_no_bom(tmp_path: Path) -> None:
    path = tmp_path / "bom.csv"
    path.write_bytes(b"\xef\xbb\xbfSegment,Q1\nServices,1340\nGoods,99\n")
    assert _spans(path)["row=1"] == "Segment\tQ1"


def test_pdf_page_that_fails_to_extract_costs_only_that_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    from reportlab.pdfgen import canvas

    from graphforge.parsers import pdf

    buf = io.BytesIO()
    pages = canvas.Canvas(buf)
    for line in ("Revenue 1,340", "Broken page", "Costs 415"):
        pages.drawString(72, 720, line)
        pages.showPage()
    pages.save()
    path = tmp_path / "report.pdf"
    path.write_bytes(buf.getvalue())
    def flaky(real: object) -> object:
        def pages(path: Path, numbers: object = None) -> object:
            for text in real(path, numbers):  # type: ignore[operator]
                if isinstance(text, str) and "Broken" in text:
                    # what a damaged font table or content stream does inside an extractor
                    yield KeyError("/Widths")
                else:
                    yield text

        return pages

    monkeypatch.setattr(pdf, "EXTRACTORS", {k: flaky(v) for k, v in pdf.EXTRACTORS.items()})
    parsed = parse_file(path)
    assert parsed.valid, parsed.invalid_reason
    assert [s.locator for s in parsed.spans] == ["page=1", "page=3"]
    assert parsed.page_count == 3
    assert parsed.warnings == ["1 of 3 pages could not be read by any extractor"]


def test_sample_encrypted_xlsx_is_really_encrypted_and_recorded_so(broken: Path) -> None:
    import io

    import msoffcrypto

    path = broken / "encrypted_budget.xlsx"
    assert msoffcrypto.OfficeFile(io.BytesIO(path.read_bytes())).is_encrypted()
    office = msoffcrypto.OfficeFile(io.BytesIO(path.read_bytes()))  # is_encrypted() spoils a later decrypt
    office.load_key(password="budget-2024")
    plain = io.BytesIO()
    office.decrypt(plain)
    decrypted = broken.parent / "decrypted_budget.xlsx"  # outside the broken folder other tests ingest
    decrypted.write_bytes(plain.getvalue())
    assert _spans(decrypted)["sheet=Data!A1:B1"] == "2024\t1257"
    parsed = parse_file(path)
    assert not parsed.valid
    assert parsed.format is FileFormat.XLSX
    assert "encrypted Office document" in (parsed.invalid_reason or "")


def test_encrypted_office_file_with_its_directory_after_the_payload(tmp_path: Path) -> None:
    import struct

    # Office often writes the OLE directory after the (large) encrypted payload, past the sniffed head.
    header = bytearray(512)
    header[0:8] = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
    struct.pack_into("<HHHHH", header, 24, 0x3E, 3, 0xFFFE, 9, 6)
    payload_sectors = 300  # 150 KiB of "ciphertext"
    struct.pack_into("<I", header, 48, payload_sectors)
    payload = bytes((i * 131 + 7) % 256 for i in range(payload_sectors * 512))
    directory = bytearray()
    for name in ("Root Entry", "EncryptionInfo", "EncryptedPackage", ""):
        entry = bytearray(128)
        encoded = (name + "\0").encode("utf-16-le") if name else b""
        entry[0 : len(encoded)] = encoded
        directory += entry
    path = tmp_path / "budget.xlsx"
    path.write_bytes(bytes(header) + payload + bytes(directory))
    detection = detect_format(path)
    assert detection.format is FileFormat.XLSX
    assert "encrypted Office document" in (detection.refusal or "")


def test_csv_with_a_field_over_the_csv_module_default_limit(tmp_path: Path) -> None:
    path = tmp_path / "export.csv"
    notes = "x" * 200_000  # a long free-text column; the csv module refuses fields over 128 KiB by default
    path.write_text(f"id,amount,notes\n1,1340,\"{notes}\"\n2,415,short\n", encoding="utf-8")
    parsed = parse_file(path)
    spans = {s.locator: s.text for s in parsed.spans}
    assert spans["row=3"] == "2\t415\tshort"
    # Over the span cap: split at cell boundaries, each part naming its columns; the one cell over the
    # cap is split further into parts of its own. Nothing is cut.
    assert spans["row=2;cols=1-2"] == "1\t1340"
    parts = [spans[k] for k in spans if k.startswith("row=2;cols=3-3;part=")]
    assert len(parts) > 1 and "".join(parts) == notes
    assert parsed.dropped_chars == 0


def test_html_in_its_declared_legacy_charset(tmp_path: Path) -> None:
    path = tmp_path / "otchet.html"
    page = (
        '<html><head><meta charset="windows-1251"><title>Отчёт</title></head>'
        "<body><h1>Отчёт за квартал</h1><p>Выручка 1 340 тыс. руб.</p></body></html>"
    )
    path.write_bytes(page.encode("cp1251"))
    text = "\n".join(_spans(path).values())
    assert "Выручка 1 340" in text


def test_html_scripts_and_styles_never_become_spans(tmp_path: Path) -> None:
    path = tmp_path / "page.html"
    path.write_text(
        "<html><head><script>var revenue = 9999;</script><style>p {color: red}</style></head>"
        "<body><p>Revenue 1,340</p><script>track('9998')</script><noscript>9997</noscript></body></html>",
        encoding="utf-8",
    )
    text = "\n".join(_spans(path).values())
    assert "Revenue 1,340" in text and not any(n in text for n in ("9999", "9998", "9997", "color"))


@pytest.mark.parametrize(("body", "fmt"), [
    (b'<!DOCTYPE html><html><body><p>Revenue 1,340</p></body></html>', FileFormat.HTML),
    (b'{"revenue": 1340, "quarter": "Q2 2024"}', FileFormat.JSON),
])
def test_utf8_bom_does_not_hide_html_or_json(tmp_path: Path, body: bytes, fmt: FileFormat) -> None:
    path = tmp_path / "download"  # crawled files often have no extension
    path.write_bytes(b"\xef\xbb\xbf" + body)
    assert detect_format(path).format is fmt
    assert parse_file(path).valid


def test_pptx_shape_without_geometry_does_not_invalidate_the_deck(tmp_path: Path) -> None:
    from pptx import Presentation
    from pptx.enum.shapes import MSO_SHAPE
    from pptx.util import Inches

    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    shape = slide.shapes.add_shape(MSO_SHAPE.RECTANGLE, Inches(1), Inches(1), Inches(4), Inches(1))
    shape.text_frame.text = "Revenue Q2 2024: 1,340"
    geometry = shape._element.spPr.find("{http://schemas.openxmlformats.org/drawingml/2006/main}prstGeom")
    shape._element.spPr.remove(geometry)  # neither preset, custom geometry nor a text box
    group = slide.shapes.add_group_shape()
    group.shapes.add_textbox(Inches(1), Inches(3), Inches(4), Inches(1)).text_frame.text = "Costs 415"
    prs.save(str(tmp_path / "deck.pptx"))
    text = _spans(tmp_path / "deck.pptx")["slide=1"]
    assert "Revenue Q2 2024: 1,340" in text and "Costs 415" in text


def test_pdf_with_padding_after_its_trailer_is_read_not_called_truncated(tmp_path: Path) -> None:
    import io

    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    page = canvas.Canvas(buf)
    page.drawString(72, 720, "Revenue 1,340")
    page.save()
    path = tmp_path / "downloaded.pdf"
    path.write_bytes(buf.getvalue() + b"\x00" * 8192)  # what some servers and downloaders append
    assert "Revenue 1,340" in _spans(path)["page=1"]


def test_html_blocks_inside_markdown_read_as_the_page_would(tmp_path: Path) -> None:
    # Published reports mix HTML lists and tables into Markdown; tags and entities are markup, nested list
    # items are items of their own, table rows are tab-separated, and a fenced block stays verbatim.
    path = tmp_path / "summary.md"
    path.write_text(
        "## Findings\n"
        "Other findings include:\n\n"
        '<ul class="spacer">\n'
        "  <li><p><strong>Conformance gaps:</strong> the entities&#39; top pages are not conformant:</p>\n"
        "    <ul>\n      <li>23% of public internet pages</li>\n      <li>20% of intranet pages</li>\n"
        "    </ul>\n  </li>\n"
        "  <li><strong>Testing capacity:</strong> half lacked resources.</li>\n</ul>\n\n"
        "   <table>\n      <tr><th>Entity</th><th>Streams</th></tr>\n\n"
        "      <tr>\n          <td>DOI — ONRR</td>\n          <td>Royalties</td>\n      </tr>\n"
        "   </table>\n\n"
        "Inline <em>emphasis</em> &amp; an entity.\n"
        "```html\n<li>kept as code</li>\n```\n",
        encoding="utf-8",
    )
    parsed = parse_file(path)
    text = "\n".join(s.text for s in parsed.spans)
    assert "<" not in text.replace("<li>kept as code</li>", "") and "&#39;" not in text
    lines = text.splitlines()
    assert "- Conformance gaps: the entities' top pages are not conformant:" in lines
    assert "- 23% of public internet pages" in lines and "- 20% of intranet pages" in lines
    assert "- Testing capacity: half lacked resources." in lines
    assert "Entity\tStreams" in lines and "DOI — ONRR\tRoyalties" in lines
    assert "Inline emphasis & an entity." in lines
    assert "<li>kept as code</li>" in lines

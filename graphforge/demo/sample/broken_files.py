"""A folder with one file of each broken or hostile kind the workspace loader must survive and record."""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from graphforge.parsers.office_zip import FIXED_ZIP_TIME

# What each file is, and a phrase its invalid_reason must contain.
EXPECTED_REASONS: dict[str, str] = {
    "truncated_report.pdf": "truncated PDF",
    "corrupt_scan.pdf": "could not parse",
    "encrypted_statement.pdf": "encrypted PDF",
    "truncated_memo.docx": "corrupt zip container",
    "corrupt_ledger.xlsx": "corrupt zip container",
    "encrypted_budget.xlsx": "encrypted Office document",
    "empty_archive.zip": "empty zip archive",
    "bad_crc_ledger.xlsx": "damaged zip member",
    "entity_bomb.docx": "DOCTYPE/ENTITY",
    "oversized_export.csv": "over the size limit",
    "hangs_parser.pdf": "timed out",
}


class BrokenFiles(BaseModel):
    """Where the broken files are, what each must be recorded as, and the limits that make them bite."""

    root: Path
    expected_reasons: dict[str, str]
    # Ingest this folder with these (tight) limits: the oversized file is over max_file_bytes and the
    # slow PDF takes far longer than timeout_s, while every real file stays well inside both.
    max_file_bytes: int = 1024 * 1024
    timeout_s: float = 3.0


def generate_broken_files(root: Path) -> BrokenFiles:
    """Write one file per broken kind into ``root``; deterministic bytes."""
    root.mkdir(parents=True, exist_ok=True)
    good_pdf = _simple_pdf()
    (root / "truncated_report.pdf").write_bytes(good_pdf[: len(good_pdf) // 2])
    (root / "corrupt_scan.pdf").write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 8 + b"\n%%EOF\n")
    (root / "encrypted_statement.pdf").write_bytes(_encrypted_pdf())
    docx = _small_package("word/document.xml", _DOCX_BODY)
    (root / "truncated_memo.docx").write_bytes(docx[: len(docx) * 2 // 3])
    (root / "corrupt_ledger.xlsx").write_bytes(b"PK\x03\x04" + bytes((i * 37) % 251 for i in range(4000)))
    (root / "encrypted_budget.xlsx").write_bytes(_encrypted_ooxml_container())
    with zipfile.ZipFile(root / "empty_archive.zip", "w"):
        pass
    (root / "bad_crc_ledger.xlsx").write_bytes(_bad_crc_xlsx())
    (root / "entity_bomb.docx").write_bytes(_small_package("word/document.xml", _ENTITY_BOMB))
    line = b"2024-07-01,Industrial Sensors,invoice,1250.00\n"
    (root / "oversized_export.csv").write_bytes(
        b"date,segment,kind,amount_eur\n" + line * (1536 * 1024 // len(line))
    )
    (root / "hangs_parser.pdf").write_bytes(_slow_pdf())
    return BrokenFiles(root=root, expected_reasons=dict(EXPECTED_REASONS))


# ---- builders -----------------------------------------------------------------------------------

_DOCX_BODY = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>'
    + "".join(
        f"<w:p><w:r><w:t>Paragraph {i}: revenue notes for the quarter.</w:t></w:r></w:p>" for i in range(200)
    )
    + "</w:body></w:document>"
)

# The classic "billion laughs": ten levels of ten references expand to 10^9 copies of "lol".
_ENTITY_BOMB = (
    '<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n'
    + "".join(
        f' <!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">\n' for i in range(1, 10)
    )
    + ']>\n<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
    "<w:body><w:p><w:r><w:t>&lol9;</w:t></w:r></w:p></w:body></w:document>"
)

_CONTENT_TYPES = {
    "word/document.xml": (
        '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/'
        'package/2006/content-types"><Default Extension="rels" ContentType="application/'
        'vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType='
        '"application/xml"/><Override PartName="/word/document.xml" ContentType="application/'
        'vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'
    ),
}
_ROOT_RELS = (
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/'
    '2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/'
    '2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>'
)


def _zip_bytes(members: list[tuple[str, bytes]], stored: bool = False) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED) as zf:
        for name, data in members:
            info = zipfile.ZipInfo(name, date_time=FIXED_ZIP_TIME)
            info.compress_type = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
    return buf.getvalue()


def _small_package(main: str, body: str) -> bytes:
    return _zip_bytes(
        [
            ("[Content_Types].xml", _CONTENT_TYPES[main].encode()),
            ("_rels/.rels", _ROOT_RELS.encode()),
            (main, body.encode()),
        ]
    )


def _xlsx_package(sheet_xml: str, stored: bool = False) -> bytes:
    """A minimal but complete one-sheet workbook (what Excel needs: types, rels, workbook, sheet)."""
    ns = "http://schemas.openxmlformats.org"
    types = (
        f'<?xml version="1.0" encoding="UTF-8"?><Types xmlns="{ns}/package/2006/content-types">'
        f'<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        f'<Default Extension="xml" ContentType="application/xml"/>'
        f'<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.'
        f'spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType='
        f'"application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>'
    )
    rels = (
        f'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="{ns}/package/2006/relationships">'
        f'<Relationship Id="rId1" Type="{ns}/officeDocument/2006/relationships/officeDocument" '
        f'Target="xl/workbook.xml"/></Relationships>'
    )
    workbook = (
        f'<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="{ns}/spreadsheetml/2006/main" '
        f'xmlns:r="{ns}/officeDocument/2006/relationships"><sheets><sheet name="Data" sheetId="1" '
        f'r:id="rId1"/></sheets></workbook>'
    )
    wb_rels = (
        f'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="{ns}/package/2006/relationships">'
        f'<Relationship Id="rId1" Type="{ns}/officeDocument/2006/relationships/worksheet" '
        f'Target="worksheets/sheet1.xml"/></Relationships>'
    )
    return _zip_bytes(
        [
            ("[Content_Types].xml", types.encode()),
            ("_rels/.rels", rels.encode()),
            ("xl/workbook.xml", workbook.encode()),
            ("xl/_rels/workbook.xml.rels", wb_rels.encode()),
            ("xl/worksheets/sheet1.xml", sheet_xml.encode()),
        ],
        stored=stored,
    )


def _sheet_xml(dimension: str, rows: list[tuple[int, list[tuple[str, int]]]]) -> str:
    body = "".join(
        f'<row r="{r}">' + "".join(f'<c r="{ref}"><v>{v}</v></c>' for ref, v in cells) + "</row>"
        for r, cells in rows
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/'
        f'spreadsheetml/2006/main"><dimension ref="{dimension}"/><sheetData>{body}</sheetData></worksheet>'
    )


def small_sheet_with_lying_dimension() -> bytes:
    """A valid tiny workbook whose <dimension> claims the whole grid (seen after whole-column formatting)."""
    return _xlsx_package(
        _sheet_xml("A1:XFD1048576", [(1, [("A1", 1), ("B1", 2)]), (2, [("A2", 3), ("B2", 4)])])
    )


def far_cell_sheet() -> bytes:
    """Three real rows, then one cell at the last row Excel allows, under a whole-grid <dimension>: a
    valid workbook of 4 values (readers that densify the grid hang; a row cap on row numbers refused it)."""
    rows = [(r, [(f"A{r}", r), (f"B{r}", r * 10)]) for r in range(1, 4)] + [(1048576, [("A1048576", 1)])]
    return _xlsx_package(_sheet_xml("A1:XFD1048576", rows))


def _bad_crc_xlsx() -> bytes:
    data = bytearray(
        _xlsx_package(
            _sheet_xml("A1:B2", [(1, [("A1", 1), ("B1", 2)]), (2, [("A2", 3), ("B2", 4)])]), stored=True
        )
    )
    # Stored (uncompressed) members let one byte change inside the sheet XML without breaking deflate:
    # only the CRC-32 check can notice it.
    at = bytes(data).index(b"<sheetData>") + 3
    data[at] = ord("X") if data[at] != ord("X") else ord("Y")
    return bytes(data)


def _encrypted_ooxml_container() -> bytes:
    """A really password-protected .xlsx (ECMA-376 agile encryption, password "budget-2024").

    Made with msoffcrypto-tool (dev extra) from a small real workbook. Its salts and keys come from a
    counter instead of the OS RNG so the sample's bytes are identical on every run (a sample, not a
    secret). Without the package, a hand-made OLE container with the same stream names stands in.
    """
    try:
        from msoffcrypto.format.ooxml import OOXMLFile  # type: ignore[import-untyped]
        from msoffcrypto.method import ecma376_agile  # type: ignore[import-untyped]
        from msoffcrypto.method.container import ecma376_encrypted  # type: ignore[import-untyped]
    except ImportError:
        return _fake_encrypted_ooxml_container()
    # Over 4 KiB of plaintext: msoffcrypto cannot read back its own output when the package is small
    # enough to land in the OLE mini-stream.
    rows = [(r, [(f"A{r}", 2023 + r), (f"B{r}", 1250 + 7 * r)]) for r in range(1, 301)]
    plain = _xlsx_package(_sheet_xml("A1:B300", rows))
    counter = iter(range(1, 1 << 30))

    def fixed_random(size: int) -> bytes:
        seed = next(counter)
        return bytes((seed * 97 + i * 31) % 256 for i in range(size))

    # Both hooks are module globals the encryptor looks up at call time; restored whatever happens.
    saved = (ecma376_agile._random_buffer, ecma376_encrypted.datetime2filetime)
    ecma376_agile._random_buffer = fixed_random
    ecma376_encrypted.datetime2filetime = lambda _dt: 133_650_000_000_000_000  # 2024-07-15, as FILETIME
    try:
        out = io.BytesIO()
        OOXMLFile(io.BytesIO(plain)).encrypt("budget-2024", out)
    finally:
        ecma376_agile._random_buffer, ecma376_encrypted.datetime2filetime = saved
    return out.getvalue()


def _fake_encrypted_ooxml_container() -> bytes:
    """An OLE compound-file header and directory naming EncryptionInfo / EncryptedPackage streams, with
    filler as payload: how Office lays out a password-protected .xlsx, enough to exercise detection."""
    header = bytearray(512)
    header[0:8] = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
    struct.pack_into("<HHHHH", header, 24, 0x3E, 3, 0xFFFE, 9, 6)  # minor, major version, byte order, shifts
    struct.pack_into("<I", header, 44, 1)  # one FAT sector
    struct.pack_into("<I", header, 48, 1)  # directory starts at sector 1
    struct.pack_into("<I", header, 56, 4096)  # mini-stream cutoff
    struct.pack_into("<I", header, 60, 0xFFFFFFFE)
    struct.pack_into("<I", header, 68, 0xFFFFFFFE)
    struct.pack_into("<I", header, 76, 0)  # DIFAT[0] = FAT at sector 0
    for i in range(1, 109):
        struct.pack_into("<I", header, 76 + 4 * i, 0xFFFFFFFF)
    fat = bytearray(b"\xff" * 512)
    struct.pack_into("<IIII", fat, 0, 0xFFFFFFFD, 0xFFFFFFFE, 3, 0xFFFFFFFE)
    directory = bytearray()
    for name, kind in (("Root Entry", 5), ("EncryptionInfo", 2), ("EncryptedPackage", 2), ("", 0)):
        entry = bytearray(128)
        encoded = (name + "\0").encode("utf-16-le") if name else b""
        entry[0 : len(encoded)] = encoded
        struct.pack_into("<HB", entry, 64, len(encoded), kind)
        directory += entry
    filler = bytes((i * 131 + 7) % 256 for i in range(1024))
    return bytes(header + fat + directory + filler)


def _pdf_from_pages(contents: list[bytes], encrypt_with: str | None = None) -> bytes:
    from pypdf import PdfWriter
    from pypdf.generic import ArrayObject, ByteStringObject, DictionaryObject, NameObject, StreamObject

    writer = PdfWriter()
    font = writer._add_object(
        DictionaryObject(
            {
                NameObject("/Type"): NameObject("/Font"),
                NameObject("/Subtype"): NameObject("/Type1"),
                NameObject("/BaseFont"): NameObject("/Helvetica"),
            }
        )
    )
    streams: dict[bytes, Any] = {}  # pages with the same content share one stream object
    for content in contents:
        page = writer.add_blank_page(612, 792)
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})}
        )
        if content not in streams:
            stream = StreamObject()
            stream._data = zlib.compress(content, 9)
            stream[NameObject("/Filter")] = NameObject("/FlateDecode")
            streams[content] = writer._add_object(stream)
        page[NameObject("/Contents")] = streams[content]
    writer.add_metadata({"/Producer": "graphforge sample generator"})
    # pypdf picks a random /ID (and RC4 keys derive from it); pin it so the bytes are stable.
    fixed = ByteStringObject(bytes(16))
    writer._ID = ArrayObject([fixed, fixed])
    if encrypt_with is not None:
        writer.encrypt(
            user_password=encrypt_with, owner_password="owner-" + encrypt_with, algorithm="RC4-128"
        )
        writer._ID = ArrayObject([fixed, fixed])
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


def _simple_pdf() -> bytes:
    return _pdf_from_pages(
        [
            b"BT /F1 12 Tf 72 720 Td (Quarterly revenue 9,115) Tj ET",
            b"BT /F1 12 Tf 72 720 Td (Costs 6,760) Tj ET",
        ]
    )


def _encrypted_pdf() -> bytes:
    return _pdf_from_pages([b"BT /F1 12 Tf 72 720 Td (Confidential statement) Tj ET"], encrypt_with="s3cret")


def _slow_pdf() -> bytes:
    # ~60 KB on disk: 400 pages share one stream of ~4 MB of text operators after inflation, so text
    # extraction grinds for minutes with any extractor (each page interprets every operator; the fastest
    # takes ~0.3 s a page) while memory stays modest. It stands in for a parser hang.
    page = b"BT /F1 1 Tf " + b"(x) Tj 0 0 Td " * 300_000 + b"ET"
    return _pdf_from_pages([page] * 400)

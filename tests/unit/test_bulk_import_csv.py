"""The neo4j-admin CSV: typed headers, None vs empty string, quotes, line breaks and arrays survive."""

from __future__ import annotations

import csv
from pathlib import Path

from graphforge.graphdb.bulk_import import ARRAY_DELIMITER, import_arguments, write_csv
from graphforge.models.workspace import FileFormat, FileIngestRow, SpanKind, SpanRow


def _row() -> FileIngestRow:
    sha = "ab" * 32
    spans = [
        SpanRow(span_id=f"{sha[:16]}:para=0", file_sha256=sha, locator="para=0", kind=SpanKind.PARAGRAPH,
                ordinal=0, text='He said "total: 1,250"\nthen left'),
        SpanRow(span_id=f"{sha[:16]}:para=1", file_sha256=sha, locator="para=1", kind=SpanKind.PARAGRAPH,
                ordinal=1, text=""),
    ]
    return FileIngestRow(sha256=sha, size=10, format=FileFormat.DOCX, valid=True, parser="docx",
                         span_count=2, warnings=["cap; hit", "b"], spans=spans)


def test_the_csv_reads_back_as_the_rows(tmp_path: Path) -> None:
    files = write_csv([_row()], tmp_path)
    assert (files.file_count, files.span_count) == (1, 2)
    with files.files.open(newline="") as fh:
        header, line = list(csv.reader(fh))
    record = dict(zip(header, line, strict=True))
    assert record["sha256:ID(File)"] == "ab" * 32 and record["valid:boolean"] == "true"
    assert record["warnings:string[]"].split(ARRAY_DELIMITER) == ["cap; hit", "b"]
    assert record["ingested:boolean"] == "true" and record[":LABEL"] == "File"
    raw = files.files.read_text().splitlines()[1]
    assert ',"docx",' in raw and ',,' in raw  # None (invalid_reason, page_count) is an empty unquoted field
    with files.spans.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert rows[0]["text"] == 'He said "total: 1,250"\nthen left'
    assert '""' in files.spans.read_text().splitlines()[-1]  # an empty string stays a quoted empty string
    assert files.has_span.read_text().splitlines()[1] == f'"{"ab" * 32}","{"ab" * 8}:para=0","HAS_SPAN"'


def test_import_arguments(tmp_path: Path) -> None:
    files = write_csv([_row()], tmp_path)
    args = import_arguments(files, "neo4j")
    assert args[:3] == ["database", "import", "full"] and args[-1] == "neo4j"
    assert "--multiline-fields=true" in args and f"--nodes={files.spans}" in args

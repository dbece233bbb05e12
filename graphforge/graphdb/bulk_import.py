"""Initial loads through ``neo4j-admin database import``: parsed files and spans as CSV, imported offline.

The batched ``UNWIND`` path (graph.write of workspace/merge_files) is what every run uses: idempotent,
online, one transaction per batch. For a first load of a large prepared corpus into an empty database,
the offline importer writes the store directly and skips transactions altogether; bench/write_bench.py
measures both on the same rows. The CSV written here produces the same File, Span and HAS_SPAN graph as
the batched path (``graph_digest`` compares the two); indexes and constraints come afterwards from the
schema migrations.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphforge.errors import GraphforgeError
from graphforge.graphdb import cypher
from graphforge.graphdb.graph import Graph
from graphforge.models.workspace import FileIngestRow

GET_FILE_SPANS = cypher.load("bulk/get_file_spans")
AWAIT_INDEXES = cypher.load("bulk/await_indexes")

ARRAY_DELIMITER = "\x1f"  # unit separator: never in parser warnings, unlike ';'

# Column headers in neo4j-admin's typed form; the ID columns are stored as the key properties.
FILE_COLUMNS = [
    ("sha256", "sha256:ID(File)"), ("size", "size:long"), ("format", "format"), ("valid", "valid:boolean"),
    ("invalid_reason", "invalid_reason"), ("parser", "parser"), ("span_count", "span_count:long"),
    ("page_count", "page_count:long"), ("warnings", "warnings:string[]"),
    ("dropped_chars", "dropped_chars:long"), ("dropped_rows", "dropped_rows:long"), ("width", "width:long"),
    ("height", "height:long"), ("formulas_json", "formulas_json"), ("ingested", "ingested:boolean"),
]
SPAN_COLUMNS = [
    ("span_id", "span_id:ID(Span)"), ("file_sha256", "file_sha256"), ("locator", "locator"),
    ("kind", "kind"), ("ordinal", "ordinal:long"), ("text", "text"), ("formulas_json", "formulas_json"),
]


class BulkImportError(GraphforgeError):
    """neo4j-admin database import refused the prepared files."""


@dataclass(frozen=True)
class ImportFiles:
    files: Path
    spans: Path
    has_span: Path
    file_count: int
    span_count: int


def _field(value: Any) -> str:
    """One CSV field: None is an empty unquoted field (no property); every string is quoted, so an empty
    string stays an empty string (neo4j-admin's default --ignore-empty-strings=false)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, list):
        if not value:
            return ""  # an empty array cannot be told from no value in CSV; see graph_digest
        value = ARRAY_DELIMITER.join(str(v) for v in value)
    text = str(value).replace('"', '""')
    return f'"{text}"'


def _line(values: Iterable[Any]) -> str:
    return ",".join(_field(v) for v in values) + "\n"


def write_csv(rows: Iterable[FileIngestRow], out_dir: Path) -> ImportFiles:
    """Stream parsed files with their spans into the three CSV files neo4j-admin reads."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = ImportFiles(out_dir / "files.csv", out_dir / "spans.csv", out_dir / "has_span.csv", 0, 0)
    n_files = n_spans = 0
    with (paths.files.open("w", encoding="utf-8", newline="") as files,
          paths.spans.open("w", encoding="utf-8", newline="") as spans,
          paths.has_span.open("w", encoding="utf-8", newline="") as rels):
        files.write(",".join(h for _, h in FILE_COLUMNS) + ",:LABEL\n")
        spans.write(",".join(h for _, h in SPAN_COLUMNS) + ",:LABEL\n")
        rels.write(":START_ID(File),:END_ID(Span),:TYPE\n")
        for row in rows:
            data = row.model_dump(mode="json")
            data["ingested"] = True  # what merge_files sets once a file's spans are written
            files.write(_line([*(data[k] for k, _ in FILE_COLUMNS), "File"]))
            n_files += 1
            for span in data["spans"]:
                spans.write(_line([*(span[k] for k, _ in SPAN_COLUMNS), "Span"]))
                rels.write(_line([data["sha256"], span["span_id"], "HAS_SPAN"]))
                n_spans += 1
    return ImportFiles(paths.files, paths.spans, paths.has_span, n_files, n_spans)


def import_arguments(files: ImportFiles, database: str) -> list[str]:
    """``neo4j-admin`` arguments for a full import of the prepared files into ``database``."""
    return [
        "database", "import", "full",
        f"--nodes={files.files}", f"--nodes={files.spans}", f"--relationships={files.has_span}",
        f"--array-delimiter={ARRAY_DELIMITER}", "--multiline-fields=true", "--overwrite-destination=true",
        database,
    ]


def graph_digest(graph: Graph, shas: Sequence[str]) -> str:
    """SHA-256 of the File/Span/HAS_SPAN subgraph of ``shas``: every property of every node and edge.

    An empty list property and an absent one hash alike (CSV cannot tell them apart, and a query that
    reads ``coalesce(f.warnings, [])`` sees no difference).
    """
    h = hashlib.sha256()
    records = sorted(graph.read_dicts(GET_FILE_SPANS, shas=list(shas)), key=lambda r: r["sha256"])
    for record in records:
        file = {k: v for k, v in record["file"].items() if v != []}
        spans = [{k: v for k, v in s.items() if v != []} for s in record["spans"]]
        h.update(json.dumps([file, spans], sort_keys=True, ensure_ascii=False).encode())
    return h.hexdigest()


def await_indexes(graph: Graph, seconds: int = 3600) -> None:
    """Block until every index has finished populating."""
    graph.execute_autocommit(AWAIT_INDEXES, seconds=seconds)

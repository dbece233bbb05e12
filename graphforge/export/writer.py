"""Streaming, deterministic writers: JSONL + Parquet side by side, then a manifest with checksums."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
from pathlib import Path
from types import TracebackType
from typing import Any

import pyarrow as pa  # type: ignore[import-untyped]
import pyarrow.json as pa_json  # type: ignore[import-untyped]
import pyarrow.parquet as pq  # type: ignore[import-untyped]
import pydantic_core
from pydantic import BaseModel

from graphforge.errors import ExportError
from graphforge.parsers.base import file_digest

# A Parquet row group closes at whichever comes first: this many bytes of JSONL text or this many
# rows. The writer holds only the pending rows' JSONL bytes (not Python dicts), so memory stays flat
# at about ROW_GROUP_BYTES plus its Arrow form, while row groups are big enough for fast reads and
# few per-batch costs. Both limits depend only on the data, so files stay byte-identical.
ROW_GROUP_BYTES = 4 << 20
ROW_GROUP_ROWS = 4096


class FileEntry(BaseModel):
    path: str  # relative to the export folder
    sha256: str
    bytes: int
    rows: int


class TokenStats(BaseModel):
    counter: str
    max_tokens: int
    total: int = 0
    min: int = 0
    max: int = 0
    mean: float = 0.0
    median: float = 0.0
    p95: int = 0


def token_stats(counts: list[int], counter: str, max_tokens: int) -> TokenStats:
    """Summary of the exported rows' lengths (the excluded ones are reported separately)."""
    if not counts:
        return TokenStats(counter=counter, max_tokens=max_tokens)
    ordered = sorted(counts)
    p95 = ordered[min(len(ordered) - 1, max(0, -(-95 * len(ordered) // 100) - 1))]  # nearest-rank
    return TokenStats(
        counter=counter,
        max_tokens=max_tokens,
        total=sum(ordered),
        min=ordered[0],
        max=ordered[-1],
        mean=round(sum(ordered) / len(ordered), 3),
        median=float(statistics.median(ordered)),
        p95=p95,
    )


def dumps_row(row: dict[str, Any]) -> bytes:
    """One JSONL line: compact UTF-8 JSON, key order as built (fixed by the row builders).

    pydantic-core's serializer writes the same compact form as ``json.dumps(..., ensure_ascii=False,
    separators=(",", ":"))`` several times faster.
    """
    return pydantic_core.to_json(row)


def sha256_file(path: Path) -> str:
    return file_digest(path)[0]


def git_commit(repo: Path | None = None) -> str:
    """HEAD of the checkout graphforge runs from, or "unknown" (installed wheel, no git)."""
    where = repo or Path(__file__).resolve().parents[2]
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=where, capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and len(commit) == 40 else "unknown"


def ensure_out_dir(out_dir: Path) -> None:
    """Create the export folder, or raise one ExportError line naming what is wrong with the path."""
    if out_dir.exists() and not out_dir.is_dir():
        raise ExportError(f"{out_dir}: exists and is not a folder; give a folder to export to")
    for parent in out_dir.parents:
        if parent.exists() and not parent.is_dir():
            raise ExportError(f"{out_dir}: cannot create the export folder, {parent} is a file")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        probe = out_dir / f".write-probe-{os.getpid()}"
        probe.touch()
        probe.unlink()
    except OSError as exc:
        raise ExportError(f"{out_dir}: cannot write the export there: {exc.strerror or exc}") from None


class RowWriter:
    """Write rows to ``<name>.jsonl`` and ``<name>.parquet`` incrementally, atomically and reproducibly.

    Rows go to temporary files that replace the final ones only on a clean close, so a failed export
    never leaves half a data set behind a valid-looking name. Nothing time-dependent is written.
    """

    def __init__(self, out_dir: Path, name: str, schema: pa.Schema) -> None:
        self.out_dir = out_dir
        self.name = name
        self.schema = schema
        self.rows = 0
        self._pending = bytearray()  # JSONL text of the open row group
        self._pending_rows = 0
        # Extra fields fail the read instead of vanishing from the Parquet file.
        self._parse = pa_json.ParseOptions(explicit_schema=schema, unexpected_field_behavior="error")
        ensure_out_dir(out_dir)
        self._jsonl = out_dir / f"{name}.jsonl"
        self._parquet = out_dir / f"{name}.parquet"
        self._tmp_jsonl = out_dir / f".{name}.jsonl.partial"
        self._tmp_parquet = out_dir / f".{name}.parquet.partial"
        try:
            self._jsonl_fh = self._tmp_jsonl.open("wb")
            # No statistics or dictionary pages that depend on batch boundaries beyond the data-determined
            # row-group cuts; the created_by string only changes with the pyarrow version.
            self._pq = pq.ParquetWriter(
                self._tmp_parquet, schema, compression="zstd", use_dictionary=False, write_statistics=True
            )
        except OSError as exc:
            raise ExportError(f"{out_dir}: cannot write the export: {exc.strerror}") from exc

    def add(self, row: dict[str, Any]) -> None:
        line = dumps_row(row) + b"\n"
        try:
            self._jsonl_fh.write(line)
            self._pending += line
            self._pending_rows += 1
            self.rows += 1
            if len(self._pending) >= ROW_GROUP_BYTES or self._pending_rows >= ROW_GROUP_ROWS:
                self._flush()
        except OSError as exc:  # disk full, quota, the folder removed under us
            raise ExportError(f"{self.out_dir}: cannot write the export: {exc.strerror or exc}") from exc

    def _flush(self) -> None:
        """Write the pending rows as one row group, parsed by Arrow's C++ JSON reader from the JSONL text.

        The Parquet file thus holds exactly what the JSONL file says, typed by the fixed schema, and no
        row is converted from Python objects (Table.from_pylist cost more than the rest of the export).
        """
        if not self._pending_rows:
            return
        # One block for the whole batch: one chunk per column, so one row group per flush. The reader
        # sees the pending bytes without a copy; a fresh bytearray follows (the old one stays exported
        # to Arrow until the reader is gone, and an exported bytearray cannot be resized).
        read = pa_json.ReadOptions(use_threads=False, block_size=len(self._pending) + 1)
        source = pa.BufferReader(pa.py_buffer(self._pending))
        table = pa_json.read_json(source, read_options=read, parse_options=self._parse)
        del source
        self._pq.write_table(table.select(self.schema.names).cast(self.schema))
        self._pending = bytearray()
        self._pending_rows = 0

    def close(self) -> list[FileEntry]:
        """Finish both files, move them into place, and return their checksums."""
        try:
            self._flush()
            self._pq.close()
            self._jsonl_fh.close()
            os.replace(self._tmp_jsonl, self._jsonl)
            os.replace(self._tmp_parquet, self._parquet)
        except OSError as exc:
            raise ExportError(f"{self.out_dir}: cannot finish the export: {exc.strerror}") from exc
        return [
            FileEntry(path=p.name, sha256=sha256_file(p), bytes=p.stat().st_size, rows=self.rows)
            for p in (self._jsonl, self._parquet)
        ]

    def abort(self) -> None:
        for closer in (self._pq.close, self._jsonl_fh.close):
            try:
                closer()
            except Exception:  # noqa: BLE001 - best effort while another error propagates
                pass
        for tmp in (self._tmp_jsonl, self._tmp_parquet):
            tmp.unlink(missing_ok=True)

    def __enter__(self) -> RowWriter:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc_type is not None:
            self.abort()


def write_json(path: Path, data: BaseModel) -> FileEntry:
    """Write a manifest deterministically (sorted keys, trailing newline) and return its checksum."""
    text = json.dumps(data.model_dump(mode="json"), ensure_ascii=False, sort_keys=True, indent=2) + "\n"
    tmp = path.with_name(f".{path.name}.partial")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        raise ExportError(f"{path}: cannot write: {exc.strerror}") from exc
    return FileEntry(path=path.name, sha256=sha256_file(path), bytes=path.stat().st_size, rows=0)

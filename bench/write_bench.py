"""Span writes: the batched UNWIND path, profiled factor by factor, against ``neo4j-admin database import``.

All measurements write the same generated File+Span rows (the shape load_workspace writes) in one run:

- baseline: ``graph.write(MERGE_FILES, rows)``, the stage's own query and batching;
- transaction size: files per transaction chosen so a transaction holds ~1k / ~5k / all spans;
- spans per file: the same span count as 10x more files of 10x fewer spans and the reverse (relationship
  MERGE cost grows with a file's degree if it is not the cheap side of the check);
- text size: 0, the default and 10x the default characters per span;
- the full-text index on Span.text dropped during the load, then rebuilt (its build time reported);
- the neo4j-rust-ext packstream codec switched off (pure-Python encoding);
- two writer threads on disjoint files;
- ``neo4j-admin database import full`` of the same rows as CSV into a fresh, temporary Neo4j (timed with
  CSV writing, the import, and the schema migrations with index population); the imported graph is then
  compared with the batched one property by property (graph_digest).

Needs the configured Neo4j (or the project-managed server); writes under its own file hashes and deletes
them afterwards, except that the full-text index is dropped and rebuilt during its measurement.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import random
import shutil
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from graphforge.context import StageContext, open_context
from graphforge.graphdb import bulk_import, chores, migrations, server
from graphforge.graphdb.graph import Graph
from graphforge.models.workspace import FileFormat, FileIngestRow, SpanKind, SpanRow
from graphforge.settings import GraphforgeSettings
from graphforge.stages import load_workspace as stage

FULLTEXT_INDEX = "span_text_fulltext"
WORDS = ("revenue", "quarter", "budget", "total", "margin", "forecast", "region", "variance", "cost",
         "headcount", "north", "south", "Q3", "2024", "1,250.00", "12.5%", "approved", "pending")


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench write_bench", description=__doc__)
    parser.add_argument("--files", type=int, default=40)
    parser.add_argument("--spans", type=int, default=500, help="spans per file")
    parser.add_argument("--text", type=int, default=300, help="characters of text per span")
    parser.add_argument("--no-admin-import", action="store_true", help="skip the neo4j-admin comparison")
    parser.add_argument("--baseline-only", action="store_true",
                        help="measure only the batched baseline and neo4j-admin import (for large loads)")
    return parser


def make_rows(files: int, spans: int, text: int, tag: str = "") -> list[FileIngestRow]:
    """Deterministic File+Span rows, each file's hash unique to this benchmark."""
    rng = random.Random(f"{files}/{spans}/{text}/{tag}")
    rows = []
    for i in range(files):
        sha = hashlib.sha256(f"write-bench {tag} {i}".encode()).hexdigest()
        span_rows = []
        for n in range(spans):
            words: list[str] = []
            while sum(len(w) + 1 for w in words) < text:
                words.append(rng.choice(WORDS))
            body = " ".join(words)[:text]
            span_rows.append(SpanRow(span_id=f"{sha[:16]}:para={n}", file_sha256=sha, locator=f"para={n}",
                                     kind=SpanKind.PARAGRAPH, ordinal=n, text=body))
        rows.append(FileIngestRow(sha256=sha, size=spans * text, format=FileFormat.DOCX, valid=True,
                                  parser="bench", span_count=spans, warnings=["bench row"], spans=span_rows))
    return rows


def delete_rows(ctx: StageContext, rows: Sequence[FileIngestRow]) -> None:
    """Remove the benchmark's files and spans (linked to a throwaway workspace, deleted with it)."""
    ctx.graph.write(stage.MERGE_WORKSPACES,
                    [{"workspace_id": "ws-write-bench", "name": "bench", "root": "", "seed_id": None}])
    ctx.graph.write(stage.LINK_WORKSPACE_FILES, [
        {"workspace_id": "ws-write-bench", "sha256": r.sha256, "path": f"f{i}", "role": "ambient",
         "role_source": "bench", "source_url": None, "license": None, "duplicate_paths": []}
        for i, r in enumerate(rows)])
    stage.delete_workspace(ctx.graph, "ws-write-bench")


def timed_write(graph: Graph, rows: Sequence[FileIngestRow], threads: int = 1) -> float:
    started = time.perf_counter()
    if threads == 1:
        graph.write(stage.MERGE_FILES, rows)
    else:
        parts = [rows[i::threads] for i in range(threads)]
        workers = [threading.Thread(target=graph.write, args=(stage.MERGE_FILES, p)) for p in parts]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    return time.perf_counter() - started


@contextlib.contextmanager
def pure_python_packstream() -> Iterator[None]:
    """Switch the driver's Rust packstream codec (neo4j-rust-ext) off: its pure-Python packer and unpacker
    (the driver picks one or the other when the module loads)."""
    from neo4j._codec.packstream import v1

    saved = v1.Packer._pack, v1.Unpacker.unpack

    def py_pack(self: v1.Packer, data: object, dehydration_hooks: object = None) -> None:
        self._py_pack(data, dehydration_hooks)

    def py_unpack(self: v1.Unpacker, hydration_hooks: object = None) -> object:
        return self._unpack(hydration_hooks=hydration_hooks)

    v1.Packer._pack, v1.Unpacker.unpack = py_pack, py_unpack  # type: ignore[method-assign]
    try:
        yield
    finally:
        v1.Packer._pack, v1.Unpacker.unpack = saved  # type: ignore[method-assign]


def fulltext_statement() -> tuple[migrations.Migration, str]:
    for migration in migrations.discover():
        for statement in migration.statements:
            if FULLTEXT_INDEX in statement:
                return migration, statement
    raise SystemExit(f"no migration creates {FULLTEXT_INDEX}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def admin_import(
    rows: Sequence[FileIngestRow], settings: GraphforgeSettings, tmp: Path
) -> dict[str, float | str]:
    """CSV + neo4j-admin import into a fresh temporary Neo4j, then schema + indexes; returns timings and the
    imported graph's digest."""
    home = tmp / "admin-home"
    temp_settings = settings.model_copy(update={
        "home": home, "bolt_port": _free_port(), "http_port": _free_port(), "neo4j_uri": None})
    srv = server.ManagedServer(temp_settings)
    srv.fetch()
    srv._write_config()  # noqa: SLF001 - the import must run before the first start
    srv._initialise()  # noqa: SLF001
    started = time.perf_counter()
    files = bulk_import.write_csv(rows, tmp / "csv")
    csv_s = time.perf_counter() - started
    proc = srv._java(server._ADMIN, *bulk_import.import_arguments(files, "neo4j"), timeout=3600)  # noqa: SLF001
    import_s = time.perf_counter() - started - csv_s
    if proc.returncode != 0:
        last = (proc.stderr or proc.stdout).strip().splitlines()[-1:]
        raise SystemExit(f"neo4j-admin import failed: {last}")
    try:
        info = srv.start()
        driver = server.open_driver(info)
        try:
            graph = Graph(driver, info.database, settings.batch_size)
            t0 = time.perf_counter()
            migrations.migrate(graph)
            bulk_import.await_indexes(graph)
            schema_s = time.perf_counter() - t0
            digest = bulk_import.graph_digest(graph, [r.sha256 for r in rows])
        finally:
            driver.close()
    finally:
        srv.stop()
        shutil.rmtree(home, ignore_errors=True)
    return {"csv_s": csv_s, "import_s": import_s, "schema_s": schema_s, "digest": digest}


def profile_codec_threads_index(ctx: StageContext, rows: Sequence[FileIngestRow], measure: Any) -> None:
    """The driver codec, a second writer, and the full-text index (dropped, then rebuilt and timed)."""
    g = ctx.graph
    total = sum(len(r.spans) for r in rows)
    with pure_python_packstream():
        measure("without neo4j-rust-ext (pure-Python packstream)", ctx, rows)
    measure("2 writer threads", ctx, rows, threads=2)
    migration, statement = fulltext_statement()
    g.execute_autocommit(chores.DELETE_INDEX, name=FULLTEXT_INDEX)
    try:
        no_index = measure("without the Span.text full-text index", ctx, rows)
    finally:
        t0 = time.perf_counter()
        migrations._run_schema_statement(g.driver, g.database, migration, statement)  # noqa: SLF001
        bulk_import.await_indexes(g)
        rebuild_s = time.perf_counter() - t0
    print(f"  {'  + rebuilding that index afterwards':<46} {rebuild_s:6.2f} s "
          f"(load + rebuild {total / (no_index + rebuild_s):,.0f} span rows/s)", flush=True)


def main(argv: list[str]) -> None:
    args = make_parser().parse_args(argv)
    results: list[tuple[str, int, float]] = []

    def measure(label: str, ctx: StageContext, rows: Sequence[FileIngestRow], graph: Graph | None = None,
                threads: int = 1) -> float:
        delete_rows(ctx, rows)
        seconds = timed_write(graph or ctx.graph, rows, threads)
        delete_rows(ctx, rows)
        spans = sum(len(r.spans) for r in rows)
        results.append((label, spans, seconds))
        print(f"  {label:<46} {spans / seconds:9,.0f} span rows/s  ({spans:,} spans, {seconds:6.2f} s)",
              flush=True)
        return seconds

    with tempfile.TemporaryDirectory() as tmp, open_context() as ctx:
        rows = make_rows(args.files, args.spans, args.text)
        total = args.files * args.spans
        g = ctx.graph
        print(f"write bench: {args.files} files x {args.spans} spans x {args.text} chars = {total:,} span "
              f"rows; Graph batch_size {g.batch_size} rows (files)", flush=True)
        baseline = measure("batched UNWIND (stage query, default batching)", ctx, rows)
        for spans_per_tx in () if args.baseline_only else (1000, 5000):
            files_per_tx = max(1, spans_per_tx // args.spans)
            smaller = Graph(g.driver, g.database, files_per_tx)
            measure(f"transactions of ~{files_per_tx * args.spans:,} spans", ctx, rows, smaller)
        shapes = ((args.files * 10, max(1, args.spans // 10)), (max(1, args.files // 10), args.spans * 10))
        for files, spans in () if args.baseline_only else shapes:
            measure(f"{files} files x {spans} spans", ctx, make_rows(files, spans, args.text, "shape"))
        for chars in () if args.baseline_only else (0, args.text * 10):
            measure(f"text {chars} chars per span", ctx, make_rows(args.files, args.spans, chars, "text"))
        if not args.baseline_only:
            profile_codec_threads_index(ctx, rows, measure)

        timed_write(g, rows)
        batched_digest = bulk_import.graph_digest(g, [r.sha256 for r in rows])
        delete_rows(ctx, rows)
        if not args.no_admin_import:
            admin = admin_import(rows, ctx.settings, Path(tmp))
            end_to_end = float(admin["csv_s"]) + float(admin["import_s"]) + float(admin["schema_s"])
            label = "neo4j-admin import (CSV + import + schema)"
            print(f"  {label:<46} {total / end_to_end:9,.0f} span rows/s  "
                  f"(CSV {admin['csv_s']:.2f} s, import {admin['import_s']:.2f} s, "
                  f"schema+indexes {admin['schema_s']:.2f} s)", flush=True)
            print(f"  {'neo4j-admin import alone':<46} {total / float(admin['import_s']):9,.0f} span rows/s")
            print(f"  ratio admin import (end to end) / batched baseline: {baseline / end_to_end:.1f}x")
            same = admin["digest"] == batched_digest
            print(f"  imported graph identical to the batched one: {same} "
                  f"(digest {str(admin['digest'])[:16]})")
            if not same:
                raise SystemExit("the imported graph differs from the batched one")


if __name__ == "__main__":
    main(sys.argv[1:])

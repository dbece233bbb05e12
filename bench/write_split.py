"""Where the time of a batched span write goes: client CPU, Neo4j CPU, waiting for a CPU, disk, per operator.

``python -m bench write_split [--files 40 --spans 250 --text 300 --repeats 2]``

The same generated File+Span rows as ``write_bench`` (the shape load_workspace writes) go through the
stage's own query and batching (``graph.write(MERGE_FILES, rows)``). Around each write it reads, from
/proc, the CPU time and the run-queue wait (time a thread was ready to run but had no CPU) of this
process and of every thread of the Neo4j JVM (``/proc/PID/task/*/schedstat``), and the bytes the JVM
wrote to disk (``/proc/PID/io``). The shares of the wall time answer what limits the write: Neo4j's CPU,
the client's CPU (pydantic dumps and packstream encoding), a CPU the machine did not give, or neither
(disk flushes, locks). It then repeats the write with the Span full-text index dropped (rebuilt after)
and prints the per-operator database hits of one batch (``PROFILE`` of the same query, same rows).
Needs the project-managed server (it reads the JVM's /proc entries); writes under its own file hashes
and deletes them afterwards.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphforge.context import StageContext, open_context
from graphforge.graphdb import bulk_import, chores, migrations, server
from graphforge.models.workspace import FileIngestRow
from graphforge.settings import GraphforgeSettings
from graphforge.stages import load_workspace as stage


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench write_split", description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=40)
    parser.add_argument("--spans", type=int, default=250, help="spans per file")
    parser.add_argument("--text", type=int, default=300, help="characters of text per span")
    parser.add_argument("--repeats", type=int, default=2, help="writes per setting (the fastest is shown)")
    return parser


@dataclass(frozen=True)
class Sample:
    cpu_ns: int
    wait_ns: int
    write_bytes: int


def _schedstat(paths: Sequence[Path]) -> tuple[int, int]:
    cpu = wait = 0
    for p in paths:
        try:
            run, queued, _ = (int(x) for x in p.read_text().split())
        except (OSError, ValueError):
            continue  # a thread that ended between listing and reading
        cpu += run
        wait += queued
    return cpu, wait


def sample(pid: int, threads: bool) -> Sample:
    base = Path(f"/proc/{pid}")
    paths = list(base.glob("task/*/schedstat")) if threads else [base / "schedstat"]
    cpu, wait = _schedstat(paths)
    written = 0
    try:
        for line in (base / "io").read_text().splitlines():
            if line.startswith("write_bytes:"):
                written = int(line.split()[1])
    except OSError:
        pass
    return Sample(cpu, wait, written)


@dataclass(frozen=True)
class Split:
    wall: float
    client_cpu: float
    client_wait: float
    server_cpu: float
    server_wait: float
    disk_mb: float
    rows: int

    def line(self, label: str) -> str:
        def share(x: float) -> str:
            return f"{x:7.1f} s {100 * x / self.wall:4.0f}%"

        return (
            f"{label:<34} {self.rows / self.wall:7.0f} span rows/s  wall {self.wall:6.1f} s | client CPU "
            f"{share(self.client_cpu)} | client waiting for a CPU {share(self.client_wait)} | Neo4j CPU "
            f"{share(self.server_cpu)} | Neo4j threads waiting for a CPU {share(self.server_wait)} | "
            f"disk {self.disk_mb:.0f} MB"
        )


def measure(
    ctx: StageContext,
    pid: int,
    rows: Sequence[FileIngestRow],
    label: str,
    repeats: int,
    before: Callable[[], None] | None = None,
) -> Split:
    from bench.write_bench import delete_rows

    splits: list[Split] = []
    spans = sum(len(r.spans) for r in rows)
    for _ in range(max(1, repeats)):
        delete_rows(ctx, rows)
        if before:
            before()
        me0, jvm0 = sample(os.getpid(), threads=True), sample(pid, threads=True)
        started = time.perf_counter()
        ctx.graph.write(stage.MERGE_FILES, rows)
        wall = time.perf_counter() - started
        me1, jvm1 = sample(os.getpid(), threads=True), sample(pid, threads=True)
        split = Split(
            wall,
            (me1.cpu_ns - me0.cpu_ns) / 1e9,
            (me1.wait_ns - me0.wait_ns) / 1e9,
            (jvm1.cpu_ns - jvm0.cpu_ns) / 1e9,
            (jvm1.wait_ns - jvm0.wait_ns) / 1e9,
            (jvm1.write_bytes - jvm0.write_bytes) / 1e6,
            spans,
        )
        print(split.line(label), flush=True)
        splits.append(split)
    delete_rows(ctx, rows)
    return min(splits, key=lambda s: s.wall)  # max(1, repeats) runs: never empty


def operator_hits(ctx: StageContext, rows: Sequence[FileIngestRow]) -> list[tuple[str, int, int]]:
    """(operator, rows, db hits) of one PROFILEd batch of the stage's query on the same rows."""
    from bench.write_bench import delete_rows

    delete_rows(ctx, rows)
    params = [r.model_dump(mode="json") for r in rows]
    with ctx.graph.driver.session(database=ctx.graph.database) as session:
        # The stage's query text as loaded from cypher/, run once under PROFILE to read its plan.
        result = session.run("PROFILE " + stage.MERGE_FILES.text, rows=params)
        summary = result.consume()
    delete_rows(ctx, rows)
    out: list[tuple[str, int, int]] = []

    def walk(plan: Any) -> None:
        out.append((str(plan.get("operatorType", "?")), int(plan.get("rows", 0)), int(plan.get("dbHits", 0))))
        for child in plan.get("children", []):
            walk(child)

    if summary.profile:
        walk(summary.profile)
    return out


def main(argv: list[str]) -> None:
    from bench.write_bench import FULLTEXT_INDEX, fulltext_statement, make_rows

    args = make_parser().parse_args(argv)
    settings = GraphforgeSettings()
    if not settings.managed:
        raise SystemExit("write_split reads the Neo4j JVM's /proc entries: use the project-managed server")
    pid = server.ManagedServer(settings).pid()
    if pid is None:
        raise SystemExit("no managed Neo4j is running")
    rows = make_rows(args.files, args.spans, args.text, tag="split")
    spans = sum(len(r.spans) for r in rows)
    print(
        f"write_split: {args.files} files x {args.spans} spans x {args.text} characters = {spans} span rows; "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    with open_context(settings) as ctx:
        base = measure(ctx, pid, rows, "batched UNWIND (stage's query)", args.repeats)
        migration, statement = fulltext_statement()
        ctx.graph.execute_autocommit(chores.DELETE_INDEX, name=FULLTEXT_INDEX)
        try:
            no_index = measure(ctx, pid, rows, "same, Span.text full-text index off", args.repeats)
        finally:
            migrations._run_schema_statement(ctx.graph.driver, ctx.graph.database, migration, statement)  # noqa: SLF001
            bulk_import.await_indexes(ctx.graph)
        hits = operator_hits(ctx, rows[: max(1, len(rows) // 10)])
    print(
        f"\nbest: {base.rows / base.wall:.0f} span rows/s with the full-text index, "
        f"{no_index.rows / no_index.wall:.0f} without ({base.wall / no_index.wall:.2f}x)"
    )
    print("PROFILE of one batch (a tenth of the files): operator, rows, db hits")
    for name, n, db_hits in hits:
        print(f"  {name:<40} {n:>9} {db_hits:>10}")
    accounted = base.client_cpu + base.server_cpu + base.server_wait + base.client_wait
    print(
        f"\nof {base.wall:.1f} s wall: Neo4j CPU {base.server_cpu:.1f} s, Neo4j threads waiting for a CPU "
        f"{base.server_wait:.1f} s, client CPU {base.client_cpu:.1f} s, "
        f"client waiting {base.client_wait:.1f} s "
        f"(sums over threads, so they may exceed the wall time; {accounted / base.wall:.0%} of it)"
    )

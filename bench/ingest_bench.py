"""Workspace ingestion: GraphForge's stage against a naive loader on the same files, and batched UNWIND
writes against one-query-per-row writes on the same parsed data.

Peers: (1) naive ingestion = parse each file in-process, one after another, and write every node with its
own query and transaction; (2) for graph writes alone, the same rows sent one per query. Needs a Neo4j
(the configured one, or the project-managed server); it writes under its own workspace ids and deletes
them afterwards.

Real files: ``--real DIR`` (repeatable) also ingests each folder as a workspace with the same stage and
prints files/s and spans/s against the generated sample's files/s from the same run, parse time per format
(summed over the worker processes), the write time, the CPU seconds of the parsers, of the Neo4j JVM (the
managed server) and of the bench process, and the warnings the parsers recorded. Wall time inside writes
overlaps parsing and, on a loaded machine, is mostly waiting for a CPU; the CPU split says which side
works. The folders are only read (e.g. ``--real ../shared/corpus/gsa-section508-assessment``); the
repository never depends on them.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from graphforge.context import StageContext, open_context
from graphforge.demo.sample.workspace import generate_sample_workspace
from graphforge.graphdb import server
from graphforge.parsers import ParsedFile, parse_file
from graphforge.stages import load_workspace as stage


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench ingest_bench", description=__doc__)
    parser.add_argument(
        "--variants", type=int, default=12, help="copies of the 10-file sample, each made unique"
    )
    parser.add_argument(
        "--jobs", type=int, default=None, help="parser processes for GraphForge (default: CPUs)"
    )
    parser.add_argument(
        "--real", type=Path, action="append", default=[], metavar="DIR",
        help="a folder of real files to ingest as a workspace too (repeatable; read-only)",
    )
    parser.add_argument("--skip-generated-peers", action="store_true",
                        help="with --real: skip the naive-loop and per-row write peers (the stage still "
                             "runs on the generated files, as the reference rate)")
    return parser


def build_corpus(dest: Path, variants: int) -> Path:
    """``variants`` copies of the sample, each file's bytes made unique while staying a valid file."""
    sample = generate_sample_workspace(dest / "seed")
    root = dest / "corpus"
    for v in range(1, variants + 1):
        for src in sample.root.rglob("*"):
            if not src.is_file() or src.name == "manifest.json":
                continue
            out = root / f"v{v:03d}" / src.relative_to(sample.root)
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(src, out)
            marker = f"bench variant {v}"
            if src.suffix in {".xlsx", ".docx", ".pptx"}:
                with zipfile.ZipFile(out, "a") as zf:
                    zf.comment = marker.encode()  # a zip comment changes the bytes, not the content
            elif src.suffix == ".pdf":
                with out.open("ab") as fh:
                    fh.write(f"\n% {marker}\n%%EOF\n".encode())
            else:
                with out.open("a", encoding="utf-8") as fh:
                    fh.write(f"\n{marker}\n")
    return root


def main(argv: list[str]) -> None:
    args = make_parser().parse_args(argv)
    from graphforge.stages import load_workspace

    with tempfile.TemporaryDirectory() as tmp, open_context(start=True) as ctx:
        root = build_corpus(Path(tmp), args.variants)
        files = sorted(p for p in root.rglob("*") if p.is_file())
        ours_id, naive_id = "ws-bench-ingest-ours", "ws-bench-ingest-naive"
        for wid in (ours_id, naive_id):
            stage.delete_workspace(ctx.graph, wid)

        # 1. Whole ingestion: the stage (parallel parsing, batched writes) vs the naive loop.
        started = time.perf_counter()
        ours = load_workspace.run(ctx, load_workspace.LoadWorkspaceParams(
            root=root, workspace_id=ours_id, jobs=args.jobs, use_llm_roles=False))
        ours_s = time.perf_counter() - started
        stage.delete_workspace(ctx.graph, ours_id)
        print(
            f"ingest bench: {len(files)} files ({args.variants} unique variants of the sample), "
            f"load average {os.getloadavg()[0]:.1f}"
        )
        print(
            f"  ingestion  graphforge stage : {len(files) / ours_s:8.1f} files/s  ({ours_s:.2f} s, "
            f"{ours.parsed} parsed, {ours.spans_written} spans)", flush=True
        )
        if not (args.real and args.skip_generated_peers):
            _peers(ctx, root, naive_id, ours_s, len(files))
        for number, folder in enumerate(args.real, start=1):
            _real(ctx, folder, f"ws-bench-real-{number}", args.jobs, len(files) / ours_s)


def _peers(ctx: StageContext, root: Path, naive_id: str, ours_s: float, n_files: int) -> None:
    from loaders.workspace import scan_workspace

    scan = scan_workspace(root, workspace_id=naive_id)
    started = time.perf_counter()
    parsed: list[ParsedFile] = [parse_file(Path(c.abs_path)) for c in scan.candidates]
    naive_nodes = stage.write_row_by_row(ctx.graph, parsed)
    naive_s = time.perf_counter() - started

    # 2. Writes alone, same parsed rows: one UNWIND batch per 2000 rows vs one query per node.
    nodes = len(parsed) + sum(len(p.spans) for p in parsed)
    _delete_files(ctx, parsed)
    started = time.perf_counter()
    stage.write_row_by_row(ctx.graph, parsed)
    row_s = time.perf_counter() - started
    _delete_files(ctx, parsed)
    started = time.perf_counter()
    ctx.graph.write(stage.MERGE_FILES, [stage.ingest_row(p) for p in parsed])
    batch_s = time.perf_counter() - started
    _delete_files(ctx, parsed)

    print(
        f"  ingestion  naive serial loop: {n_files / naive_s:8.1f} files/s  "
        f"({naive_s:.2f} s, {naive_nodes} rows)"
    )
    print(f"  ratio (graphforge / naive)  : {naive_s / ours_s:8.2f}x")
    print(f"  writes     batched UNWIND   : {nodes / batch_s:8.0f} nodes/s  ({batch_s:.2f} s, {nodes} nodes)")
    print(f"  writes     one query per row: {nodes / row_s:8.0f} nodes/s  ({row_s:.2f} s)")
    print(f"  ratio (batched / per-row)   : {row_s / batch_s:8.1f}x", flush=True)


def _real(ctx: StageContext, folder: Path, workspace_id: str, jobs: int | None,
          generated_rate: float) -> None:
    """Ingest a folder of real files with the stage; report rate, parse/write split and warnings."""
    from graphforge.stages import load_workspace

    stage.delete_workspace(ctx.graph, workspace_id)
    jvm = server.ManagedServer(ctx.settings).pid() if ctx.settings.managed else None
    cpu_before = _cpu_split(jvm)
    load = os.getloadavg()[0]
    started = time.perf_counter()
    result = load_workspace.run(ctx, load_workspace.LoadWorkspaceParams(
        root=folder, workspace_id=workspace_id, jobs=jobs, use_llm_roles=False, retry_invalid=True))
    elapsed = time.perf_counter() - started
    time.sleep(0.5)  # the parser processes are reaped (their CPU counted) shortly after they stop
    cpu = [after - before for after, before in zip(_cpu_split(jvm), cpu_before, strict=True)]
    stage.delete_workspace(ctx.graph, workspace_id)
    rate = result.parsed / elapsed if elapsed else 0.0
    print(f"\nreal files: {folder} ({result.files_found} files, {result.parsed} parsed, "
          f"{result.valid} valid, {result.spans_written} spans)")
    if result.skipped_already_ingested:
        print(f"  note: {result.skipped_already_ingested} files were already in the graph (another "
              f"workspace) and were not parsed again")
    spans_rate = result.spans_written / elapsed if elapsed else 0.0
    print(f"  ingestion  graphforge stage : {rate:8.2f} files/s  {spans_rate:,.0f} spans/s "
          f"({elapsed:.2f} s wall, load average {load:.1f})")
    print(f"  ratio (real / generated)    : {rate / generated_rate:8.2f}x  "
          f"(generated: {generated_rate:.1f} files/s)")
    print(f"  graph writes (wall)         : {result.write_seconds:8.2f} s  "
          f"({result.nodes_per_s:.0f} nodes/s, overlapping the parsers)")
    print(f"  CPU seconds                 : parsers {cpu[0]:.1f}, Neo4j "
          + (f"{cpu[1]:.1f}" if jvm else "n/a (not the managed server)") + f", bench process {cpu[2]:.1f}")
    by_time = sorted(result.parse_seconds.items(), key=lambda kv: -kv[1])
    print("  parse seconds by format     : " + ", ".join(f"{fmt} {sec:.1f}" for fmt, sec in by_time))
    for path, warning in result.warnings:
        print(f"  warning  {path}: {warning}")
    for bad in result.invalid:
        print(f"  invalid  {bad.path}: {bad.reason}")


def _cpu_seconds(pid: int, children: bool = False) -> float:
    """User + system CPU seconds of a process (with its reaped children) from /proc; 0 once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = int(fields[11]) + int(fields[12]) + ((int(fields[13]) + int(fields[14])) if children else 0)
    return ticks / os.sysconf("SC_CLK_TCK")


def _cpu_split(jvm: int | None) -> tuple[float, float, float]:
    """(parser processes, Neo4j JVM, this process) CPU seconds so far.

    The parsers are this process's child processes (the forkserver, whose reaped workers count as its
    children) other than the JVM.
    """
    kids: set[int] = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        try:
            kids.update(int(p) for p in (task / "children").read_text().split())
        except OSError:
            continue
    kids.discard(jvm or -1)
    parsers = sum(_cpu_seconds(k, children=True) for k in kids)
    return parsers, _cpu_seconds(jvm) if jvm else 0.0, time.process_time()


def _delete_files(ctx: StageContext, parsed: list[ParsedFile]) -> None:
    """Drop the bench's File and Span nodes (their content is unique to this run: bench variant markers)."""
    # Re-link to a throwaway workspace, then delete it with the stage's own query.
    ctx.graph.write(
        stage.MERGE_WORKSPACES,
        [{"workspace_id": "ws-bench-tmp", "name": "bench", "root": "", "seed_id": None}],
    )
    ctx.graph.write(
        stage.LINK_WORKSPACE_FILES,
        [
            {
                "workspace_id": "ws-bench-tmp",
                "sha256": p.sha256,
                "path": p.path,
                "role": "ambient",
                "role_source": "bench",
                "source_url": None,
                "license": None,
                "duplicate_paths": [],
            }
            for p in parsed
        ],
    )
    stage.delete_workspace(ctx.graph, "ws-bench-tmp")


if __name__ == "__main__":
    main(sys.argv[1:])

"""O*NET load throughput: batched UNWIND writes (GraphForge) vs one query per row (the common peer).

Data: a synthetic release at full O*NET scale (1,000 occupations, 19,000 task statements, 2,100
DWAs, ~23,000 task-DWA links) written in the official text format. The peer runs the same MERGE
query once per row, in its own transaction, as loaders that call session.run per record do; it is
timed on the same task rows that the batched path then loads, each on an emptied database.
Needs a Neo4j (the managed one, or NEO4J_URI).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from bench import check
from graphforge.context import open_context
from graphforge.demo.sample.taxonomy import write_synthetic_release
from graphforge.graphdb import chores
from graphforge.graphdb.graph import Graph
from graphforge.stages import load_onet
from loaders.onet import read_release


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench onet_load_bench")
    parser.add_argument("--occupations", type=int, default=1000)
    parser.add_argument("--tasks-per-occupation", type=int, default=19)
    parser.add_argument("--peer-rows", type=int, default=3000, help="task rows loaded one query per row")
    args = parser.parse_args(argv)

    tmp = tempfile.TemporaryDirectory()  # the stage reads the release from disk: kept until the end
    folder = write_synthetic_release(Path(tmp.name) / "db_29_1_text", occupations=args.occupations,
                                     tasks_per_occupation=args.tasks_per_occupation)
    start = time.perf_counter()
    release = read_release(folder)
    t_read = time.perf_counter() - start
    rows = (len(release.occupations) + len(release.tasks) + len(release.task_dwas) + len(release.dwas)
            + len(release.iwas) + len(release.gwas))
    print(f"synthetic release: {len(release.occupations):,} occupations, {len(release.tasks):,} tasks, "
          f"{len(release.dwas):,} DWAs, {len(release.task_dwas):,} task-DWA links ({rows:,} rows); "
          f"read + validated in {t_read:.2f} s")

    with open_context(start=True) as ctx:
        graph = ctx.graph
        chores.delete_data(graph)
        start = time.perf_counter()
        load_onet.run(ctx, load_onet.LoadOnetParams(path=folder))
        t_full = time.perf_counter() - start
        first = chores.counts(graph)
        start = time.perf_counter()
        load_onet.run(ctx, load_onet.LoadOnetParams(path=folder))
        t_again = time.perf_counter() - start
        print(
            f"full load (read + batched UNWIND, batch {graph.batch_size}): "
            f"{t_full:.2f} s = {rows / t_full:,.0f} rows/s; "
            f"re-load {t_again:.2f} s, counts unchanged: {chores.counts(graph) == first}"
        )

        rows_t = load_onet.release_rows(release)
        subset = rows_t.tasks[: args.peer_rows]
        timings = {}
        for name, g in (("one query per row", Graph(graph.driver, graph.database, batch_size=1)),
                        ("batched UNWIND", graph)):
            chores.delete_data(graph)
            graph.write(load_onet.MERGE_RELEASE, [rows_t.header])
            graph.write(load_onet.MERGE_OCCUPATIONS, rows_t.occupations)
            start = time.perf_counter()
            written = g.write(load_onet.MERGE_TASKS, subset)
            timings[name] = time.perf_counter() - start
            check(written == len(subset), f"{name} wrote {written} of {len(subset)} task rows")
            print(f"  {name:<18} {len(subset):,} task rows in {timings[name]:7.2f} s = "
                  f"{len(subset) / timings[name]:,.0f} rows/s")
        print(f"  throughput ratio batched / per-row = "
              f"{timings['one query per row'] / timings['batched UNWIND']:.0f}x")
        chores.delete_data(graph)
    tmp.cleanup()
    return 0

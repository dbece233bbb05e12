"""Export throughput and peak memory: graphforge's streaming JSONL+Parquet writer vs plain `json`.

The peer is what a script would do without the exporter: load every trajectory into a list of row
dicts, then ``json.dumps`` the whole list to a file. graphforge does more: it validates every
message, estimates every row's length against the limit, writes JSONL *and* Parquet, and checksums
both files. Both sides read the same stored trajectories (the ``messages_json``/``tools_json`` text
Neo4j holds), generated once before anything is timed and handed over as an iterator, so the Neo4j
read and the data generation are excluded on both sides; each side's time is its whole export
including writing its files to disk. Throughput is megabytes of stored trajectory text exported per
second (the same input for both, so the throughput ratio is the inverse time ratio); times are the
best of ``--repeats`` alternating runs, because the machine is shared. Peak memory is the
tracemalloc peak of a separate run (tracemalloc slows both sides alike, so times come from plain
runs); the pre-generated input is allocated before tracing starts and counts for neither side.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path

from bench import check
from graphforge.export.dataset import write_dataset
from graphforge.export.record import TrajectoryText
from graphforge.export.rows import canonical_tools, conversational_messages, estimate_tokens

TOOLS = json.dumps(
    [
        {
            "type": "function",
            "function": {
                "name": "read_file",
                "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
            },
        }
    ]
)


def trajectories(n: int, kb: int) -> Iterator[TrajectoryText]:
    """n synthetic stored trajectories of about kb kilobytes each (tool calls, tool output, prose)."""
    for i in range(n):
        messages: list[dict[str, object]] = [
            {"role": "user", "content": f"Reconcile ledger {i} with the deck."}
        ]
        size, step = 0, 0
        while size < kb * 1024:
            body = f"row {step},{i * 7 % 97},{step * 13 % 101},Q{step % 4 + 1} revenue adjusted; " * 12
            messages += [
                {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "id": f"c{step}",
                            "type": "function",
                            "function": {
                                "name": "read_file",
                                "arguments": json.dumps({"path": f"sheet_{step}.csv"}),
                            },
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": f"c{step}", "content": body},
                {"role": "assistant", "content": f"Step {step}: the subtotal is {step * 1234.5:.2f}."},
            ]
            size += len(body) + 120
            step += 1
        yield TrajectoryText(
            trajectory_id=f"t{i:06d}",
            spec_id=f"s{i % 50}@v1",
            messages_json=json.dumps(messages, sort_keys=True),
            tools_json=TOOLS,
        )


def graphforge_export(source: list[TrajectoryText], out: Path) -> int:
    outcome = write_dataset(iter(source), out, "sft", estimate_tokens, 262_144)
    return next(f.bytes for f in outcome.files if f.path.endswith(".jsonl"))


def plain_json(source: list[TrajectoryText], out: Path) -> int:
    rows = [
        {
            "messages": json.loads(t.messages_json),
            "tools": json.loads(t.tools_json or "[]"),
            "trajectory_id": t.trajectory_id,
            "spec_id": t.spec_id,
        }
        for t in iter(source)
    ]
    path = out / "all.json"
    path.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    return path.stat().st_size


Export = Callable[[list[TrajectoryText], Path], int]


def timed(fn: Export, source: list[TrajectoryText]) -> tuple[float, int]:
    """(seconds, output bytes) of one plain run."""
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        size = fn(source, Path(tmp))
        return time.perf_counter() - started, size


def peak_memory(fn: Export, source: list[TrajectoryText]) -> int:
    """tracemalloc peak bytes of one run (the source list was allocated before tracing)."""
    with tempfile.TemporaryDirectory() as tmp:
        tracemalloc.start()
        fn(source, Path(tmp))
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return peak


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trajectories", type=int, default=400)
    parser.add_argument("--kb", type=int, default=48, help="approximate size of one trajectory")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per side; the best counts")
    args = parser.parse_args(argv)
    # Same rows on both sides: the exporter validates and rewrites the messages the peer copies.
    sample = next(trajectories(1, args.kb))
    check(json.dumps(conversational_messages(sample.messages_json, "t")), "the sample has no messages")
    check(canonical_tools(sample.tools_json) == canonical_tools(TOOLS), "the sample's tools are not TOOLS")
    source = list(trajectories(args.trajectories, args.kb))
    stored = sum(len(t.messages_json.encode()) + len((t.tools_json or "").encode()) for t in source)
    sides: dict[str, Export] = {
        "graphforge (JSONL+Parquet)": graphforge_export,
        "plain json (list+dumps)": plain_json,
    }
    best = {name: float("inf") for name in sides}
    size = dict.fromkeys(sides, 0)
    for _ in range(max(1, args.repeats)):  # alternate the sides so background load hits both
        for name, fn in sides.items():
            seconds, size[name] = timed(fn, source)
            best[name] = min(best[name], seconds)
    peak = {name: peak_memory(fn, source) for name, fn in sides.items()}
    print(
        f"data: {args.trajectories} trajectories x ~{args.kb} KB = {stored / 1e6:.1f} MB stored JSON; "
        f"Neo4j read excluded on both sides; best of {args.repeats}"
    )
    print(f"{'':28}{'MB/s':>10}{'seconds':>10}{'peak MB':>10}{'out MB':>10}")
    for name in sides:
        mbs = stored / 1e6 / best[name]
        print(f"{name:28}{mbs:>10.1f}{best[name]:>10.3f}{peak[name] / 1e6:>10.1f}{size[name] / 1e6:>10.1f}")
    ours, peer = sides
    print(f"throughput ratio graphforge/json: {best[peer] / best[ours]:.2f}x")
    print(f"peak memory ratio json/graphforge: {peak[peer] / peak[ours]:.1f}x less memory for graphforge")
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))

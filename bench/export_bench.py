"""Export throughput and peak memory: graphforge's streaming JSONL+Parquet writer vs plain `json`.

The peer is what a script would do without the exporter: load every trajectory into a list of row
dicts, then ``json.dumps`` the whole list to a file. Both read the same lazily generated stored
trajectories (the same ``messages_json`` text Neo4j holds), so the comparison isolates the writer;
the Neo4j read is not timed. Throughput is megabytes of JSON output per second; peak memory is the
tracemalloc peak of a separate run (tracemalloc slows both sides alike, so times come from plain runs).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path

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


def graphforge_export(n: int, kb: int, out: Path) -> int:
    outcome = write_dataset(trajectories(n, kb), out, "sft", estimate_tokens, 262_144)
    return next(f.bytes for f in outcome.files if f.path.endswith(".jsonl"))


def plain_json(n: int, kb: int, out: Path) -> int:
    rows = [
        {
            "messages": json.loads(t.messages_json),
            "tools": json.loads(t.tools_json or "[]"),
            "trajectory_id": t.trajectory_id,
            "spec_id": t.spec_id,
        }
        for t in trajectories(n, kb)
    ]
    path = out / "all.json"
    path.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    return path.stat().st_size


def measure(fn: Callable[[int, int, Path], int], n: int, kb: int) -> tuple[float, int, int]:
    """(seconds, output bytes, tracemalloc peak bytes)."""
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        size = fn(n, kb, Path(tmp))
        seconds = time.perf_counter() - started
    with tempfile.TemporaryDirectory() as tmp:
        tracemalloc.start()
        fn(n, kb, Path(tmp))
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return seconds, size, peak


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trajectories", type=int, default=400)
    parser.add_argument("--kb", type=int, default=48, help="approximate size of one trajectory")
    args = parser.parse_args(argv)
    # Same rows on both sides: the exporter validates and rewrites the messages the peer copies.
    sample = next(trajectories(1, args.kb))
    assert json.dumps(conversational_messages(sample.messages_json, "t"))  # noqa: S101 - sanity
    assert canonical_tools(sample.tools_json) == canonical_tools(TOOLS)  # noqa: S101
    ours = measure(graphforge_export, args.trajectories, args.kb)
    peer = measure(plain_json, args.trajectories, args.kb)
    print(f"data: {args.trajectories} trajectories x ~{args.kb} KB")
    print(f"{'':28}{'MB/s':>10}{'peak MB':>10}{'out MB':>10}")
    for name, (sec, size, peak) in (("graphforge (JSONL+Parquet)", ours), ("plain json (list+dumps)", peer)):
        print(f"{name:28}{size / 1e6 / sec:>10.1f}{peak / 1e6:>10.1f}{size / 1e6:>10.1f}")
    print(f"throughput ratio graphforge/json: {(ours[1] / ours[0]) / (peer[1] / peer[0]):.2f}x")
    print(f"peak memory ratio json/graphforge: {peer[2] / ours[2]:.1f}x less memory for graphforge")
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))

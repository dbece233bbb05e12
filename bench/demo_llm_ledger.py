"""Chat-model calls and tokens per stage for one run of `graphforge demo` with the configured chat model.

    graphforge llm start
    GRAPHFORGE_LLM_LOCAL=1 python -m bench.demo_llm_ledger --out out/demo-local

Every call goes through the process-wide ledger (graphforge.llm.LEDGER); this wraps the demo's stage
runner to read it before and after each stage. A second run of the same command replays from the cache
(the "cached" column); with GRAPHFORGE_LLM_REPLAY_ONLY=1 any new call fails the stage instead.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from graphforge.llm import LEDGER, CallTotals, chat_model
from graphforge.settings import GraphforgeSettings

T = TypeVar("T")


def main(argv: list[str]) -> int:
    import graphforge.demo.run as demo

    parser = argparse.ArgumentParser(prog="demo_llm_ledger")
    parser.add_argument("--out", type=Path, default=Path("out/demo-llm"))
    parser.add_argument("--json", type=Path, default=None, help="also write the table and result here")
    args = parser.parse_args(argv)
    settings = GraphforgeSettings()
    model = chat_model(settings)
    if model is None:
        print("error: no chat model configured (GRAPHFORGE_LLM_LOCAL=1 or GRAPHFORGE_LLM_BASE_URL)",
              file=sys.stderr)
        return 1
    per_stage: dict[str, CallTotals] = {}
    runner = demo.run_stage

    def counted(ctx: Any, name: str, fn: Callable[[], T], timings: dict[str, float]) -> T:
        mark = LEDGER.mark()
        try:
            return runner(ctx, name, fn, timings)
        finally:
            totals = LEDGER.since(mark)
            if totals.calls:
                per_stage[name] = totals

    demo.run_stage = counted  # type: ignore[assignment]
    started = time.perf_counter()
    try:
        result = demo.run_demo(settings, args.out)
    finally:
        demo.run_stage = runner
        elapsed = time.perf_counter() - started
        print(f"\nchat model {model.model} at {model.endpoint}; demo {elapsed:.0f} s")
        print(f"{'stage':40} {'calls':>6} {'cached':>6} {'in tok':>8} {'out tok':>8}")
        for name, t in per_stage.items():
            print(f"{name:40} {t.calls:6d} {t.cached_calls:6d} {t.input_tokens:8d} {t.output_tokens:8d}")
        total = CallTotals.of(LEDGER.records())
        print(f"{'total':40} {total.calls:6d} {total.cached_calls:6d} {total.input_tokens:8d} "
              f"{total.output_tokens:8d}")
    print(f"\nfunnel: {result.funnel}")
    print(f"sensitivity, deterministic verifiers:\n{result.sensitivity}")
    print(f"sensitivity, anchored chat-model judge:\n{result.sensitivity_llm}")
    if args.json is not None:
        args.json.write_text(json.dumps({
            "model": model.model, "seconds": round(elapsed, 1),
            "stages": {k: v.model_dump() for k, v in per_stage.items()},
            "result": result.model_dump(mode="json")}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""`eval compare` judging pairs concurrently against the named peer, the same stage judging one pair at a
time (concurrency 1), on a local chat server that adds a fixed latency to every answer.

The generated evaluation benchmark is loaded into the configured Neo4j (GRAPHFORGE_* settings) under its
own name, played by the oracle and by chat players answering from a scripted server; both runs judge every
pair in both orders with fresh caches (two judge names, so neither reuses the other's judgments), and must
write the same outcomes.

    python -m bench eval_compare_bench
    python -m bench eval_compare_bench -- --players 6 --latency-ms 100 --concurrency 8
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
import uuid
from pathlib import Path

from bench import check
from graphforge.context import StageContext, open_context
from graphforge.demo.sample.benchmark import write_eval_benchmark
from graphforge.eval.players import build_players
from graphforge.stages import eval_compare, eval_run, load_benchmark
from tests.support.llm_server import RecordedRequest, Reply, ScriptedLLMServer, json_answer, slow, text


def _judge(latency_s: float):  # type: ignore[no-untyped-def]
    def answer(request: RecordedRequest) -> Reply:
        prompt = str(request.last_message.get("content") or "")
        # Deterministic and order-free: the response with the longer text wins (a tie when equal).
        first, second = (prompt.split(f"Response {n}:", 1)[1].split("UNTRUSTED-", 2)[1] for n in (1, 2))
        winner = "1" if len(first) > len(second) else "2" if len(second) > len(first) else "tie"
        return slow(json_answer({"reasons": "longer", "winner": winner}), latency_s)

    return answer


def _outcomes(path: Path) -> list[tuple[str, str, str, str]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [(r["task_id"], r["model_a"], r["model_b"], r["winner"]) for r in rows]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="eval_compare_bench")
    parser.add_argument("--players", type=int, default=5, help="chat players besides the oracle")
    parser.add_argument("--latency-ms", type=float, default=250.0)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args(argv)

    name = f"bench-eval-{uuid.uuid4().hex[:6]}"
    with (tempfile.TemporaryDirectory() as tmp, open_context(start=True) as base,
          ScriptedLLMServer() as server):
        root = Path(tmp) / "bench"
        write_eval_benchmark(root, name=name)
        load_benchmark.run(base, load_benchmark.LoadBenchmarkParams(root=root, name=name))
        # A fresh cache; HTTP calls in flight capped at two per pair (both orders are asked at once).
        settings = base.settings.model_copy(update={"home": Path(tmp) / "home",
                                                    "llm_concurrency": 2 * args.concurrency})
        ctx = StageContext(settings=settings, graph=base.graph, run_id="bench")
        # Player k (system prompt of k + 1 characters) answers with k + 1 lines: every pair has a winner.
        server.responder = lambda r: text("\n".join(["Total: 1.00"] * len(r.messages[0]["content"])))
        models = [f"p{k}={server.url}" for k in range(args.players)] + ["gold=oracle"]
        prompts = [f"p{k}=" + "x" * (k + 1) for k in range(args.players)]
        players = build_players(models, system_prompts=prompts,
                                served_models=[f"p{k}=m" for k in range(args.players)], import_formats=())
        eval_run.run(ctx, eval_run.EvalRunParams(benchmark=name, players=players, benchmark_dir=root))

        server.responder = _judge(args.latency_ms / 1000)
        timings: dict[str, float] = {}
        in_flight: dict[str, int] = {}
        outcomes: dict[str, list[tuple[str, str, str, str]]] = {}
        for label, concurrency in (("sequential", 1), ("concurrent", args.concurrency)):
            out = Path(tmp) / f"{label}.jsonl"
            judge = eval_compare.JudgeSpec(name=f"bench-{label}-{name}", base_url=server.url,
                                           served_model=f"judge-{label}")
            started = time.perf_counter()
            result = eval_compare.run(ctx, eval_compare.EvalCompareParams(
                benchmark=name, out=out, judge=judge, concurrency=concurrency, min_consistency=0.0))
            timings[label] = time.perf_counter() - started
            in_flight[label] = server.max_in_flight
            server.max_in_flight = 0
            outcomes[label] = _outcomes(out)
        check(outcomes["sequential"] == outcomes["concurrent"], "the two runs disagree")
        print(f"eval compare, {result.pairs} pairs x 2 orders = {2 * result.judged} judge calls, "
              f"{args.latency_ms:g} ms server latency: one pair at a time {timings['sequential']:.2f} s, "
              f"{args.concurrency} pairs at once {timings['concurrent']:.2f} s, "
              f"ratio {timings['sequential'] / timings['concurrent']:.1f}x (same outcomes; requests in "
              f"flight at most {in_flight['sequential']} vs {in_flight['concurrent']})")
    return 0

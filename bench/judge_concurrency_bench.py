"""The chat-model judge on many specs' candidates at once (criteria and candidate groups concurrent, up to
GRAPHFORGE_LLM_CONCURRENCY) against the named peer, the same calls one after another (concurrency 1), on a
local chat server that adds a fixed latency to every answer.

Each query is K oracle rollouts of the sample spec graded jointly (one call per criterion for all K). Both
runs use fresh caches, so every call is a real HTTP request; the verdicts of both runs must be equal.

    python -m bench judge_concurrency_bench
    python -m bench judge_concurrency_bench -- --queries 6 --k 4 --latency-ms 200 --concurrency 8
"""

from __future__ import annotations

import argparse
import asyncio
import re
import tempfile
import time
from pathlib import Path

from bench import check
from graphforge.judge.core import ajudge_candidates
from graphforge.llm import OpenAICompatibleChatModel
from graphforge.models.judge import JudgeArm
from graphforge.oracle import InjectKind, run_oracle
from graphforge.settings import GraphforgeSettings
from tests.support.llm_server import RecordedRequest, Reply, ScriptedLLMServer, json_answer, slow
from tests.unit._judge_sample import sample_view


def _judge(latency_s: float):  # type: ignore[no-untyped-def]
    def answer(request: RecordedRequest) -> Reply:
        content = str(request.last_message.get("content") or "")
        k = len(re.findall(r"^Candidate \d+ deliverable excerpt:", content, re.M))
        if k == 0:
            return slow(json_answer({"score": 1.0, "evidence": "met"}), latency_s)
        return slow(json_answer({f"candidate_{i}": {"score": 1.0, "evidence": "met"}
                                 for i in range(1, k + 1)}), latency_s)

    return answer


def _run(server: ScriptedLLMServer, root: Path, queries: list[list[tuple[str, dict[str, Path]]]],
         concurrency: int, tag: str) -> tuple[float, list[float]]:
    model = OpenAICompatibleChatModel(base_url=server.url, model=f"bench-{tag}", concurrency=concurrency,
                                      cache_dir=root / f"cache-{tag}", temperature=0.0)
    view = sample_view()

    async def all_queries() -> list[float]:
        judged = await asyncio.gather(*(ajudge_candidates(view, q, JudgeArm.ANCHORED, llm=model)
                                        for q in queries))
        return [j.q for group in judged for j, _ in group]

    started = time.perf_counter()
    qs = asyncio.run(all_queries())
    return time.perf_counter() - started, qs


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="judge_concurrency_bench")
    parser.add_argument("--queries", type=int, default=4)
    parser.add_argument("--k", type=int, default=4)
    parser.add_argument("--latency-ms", type=float, default=200.0)
    parser.add_argument("--concurrency", type=int, default=None, help="default: GRAPHFORGE_LLM_CONCURRENCY")
    args = parser.parse_args(argv)
    concurrency = args.concurrency or GraphforgeSettings().llm_concurrency
    view = sample_view()
    injections = [[], [InjectKind.WRONG_NUMBER], [InjectKind.PROMPT_INJECTION], [InjectKind.CONFUSER]]
    with ScriptedLLMServer() as server, tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        queries = []
        for q in range(args.queries):
            group = []
            for k in range(args.k):
                t = run_oracle(view, view.paths, root / f"q{q}-k{k}", inject=list(injections[k % 4]),
                               seed=q * 100 + k).trajectory
                group.append((t.trajectory_id, {d.name: Path(d.path) for d in t.deliverables}))
            queries.append(group)
        server.responder = _judge(args.latency_ms / 1000)
        t_seq, q_seq = _run(server, root, queries, 1, "sequential")
        calls_seq = len(server.chat_requests)
        server.max_in_flight = 0
        t_con, q_con = _run(server, root, queries, concurrency, "concurrent")
        calls_con = len(server.chat_requests) - calls_seq
        peak = server.max_in_flight
    check(q_seq == q_con, "the concurrent judge must give the same verdicts")
    print(f"{args.queries} queries x K={args.k} candidates, {len(view.spec.criteria)} criteria, "
          f"{args.latency_ms:g} ms per answer")
    print(f"sequential (peer): {t_seq:.2f} s, {calls_seq} calls")
    print(f"concurrent up to {concurrency} (graphforge): {t_con:.2f} s, {calls_con} calls, "
          f"at most {peak} calls in flight")
    print(f"ratio: {t_seq / t_con:.1f}x faster; same Q for all {len(q_con)} candidates")
    return 0

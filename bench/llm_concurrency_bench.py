"""Rollouts of many specs at once (up to GRAPHFORGE_LLM_CONCURRENCY) against the named peer, the same
rollouts one after another, on a local chat server that adds a fixed latency to every answer.

Each rollout is three turns of the built-in agent loop (list the files, write the deliverable, finish),
with real tools in a real working folder. Both runs use fresh caches, so every turn is a real HTTP call.

    python -m bench llm_concurrency_bench
    python -m bench llm_concurrency_bench -- --specs 16 --latency-ms 300 --concurrency 8
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

from graphforge.agent.loop import RolloutJob, arun_many
from graphforge.llm import OpenAICompatibleChatModel
from graphforge.models.spec import AgentView
from graphforge.settings import GraphforgeSettings
from tests.support.llm_server import RecordedRequest, Reply, ScriptedLLMServer, slow, text, tool_call


def _agent(latency_s: float):  # type: ignore[no-untyped-def]
    def answer(request: RecordedRequest) -> Reply:
        turns = sum(1 for m in request.messages if m["role"] == "assistant")
        if turns == 0:
            return slow(tool_call("list_files", {}), latency_s)
        if turns == 1:
            write = tool_call("write_file", {"path": "summary.md", "content": "# Total\n6,500\n"})
            return slow(write, latency_s)
        return slow(text("summary.md is written."), latency_s)

    return answer


def _batch(server: ScriptedLLMServer, root: Path, specs: int, concurrency: int, tag: str
           ) -> tuple[float, int]:
    model = OpenAICompatibleChatModel(base_url=server.url, model=f"bench-{tag}", concurrency=concurrency,
                                      cache_dir=root / f"cache-{tag}")
    jobs = [RolloutJob(AgentView(spec_id=f"s{i}@v1", statement=f"Total the ledger ({i}).",
                                 files=["ledger.csv"], deliverables=["summary.md"]),
                       root / "ws", root / f"runs-{tag}" / f"s{i}")
            for i in range(specs)]
    started = time.perf_counter()
    outcomes = asyncio.run(arun_many(model, jobs, concurrency=concurrency))
    elapsed = time.perf_counter() - started
    done = sum(1 for o in outcomes if o.stop_reason == "finished" and o.trajectory.deliverables)
    return elapsed, done


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="llm_concurrency_bench")
    parser.add_argument("--specs", type=int, default=12)
    parser.add_argument("--latency-ms", type=float, default=250.0)
    parser.add_argument("--concurrency", type=int, default=None,
                        help="default: GRAPHFORGE_LLM_CONCURRENCY")
    args = parser.parse_args(argv)
    concurrency = args.concurrency or GraphforgeSettings().llm_concurrency
    with ScriptedLLMServer() as server, tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "ws").mkdir()
        (root / "ws" / "ledger.csv").write_text("account,amount\nrent,1200\npayroll,5300\n", encoding="utf-8")
        server.responder = _agent(args.latency_ms / 1000)
        t_seq, ok_seq = _batch(server, root, args.specs, 1, "sequential")
        calls_seq = len(server.chat_requests)
        t_con, ok_con = _batch(server, root, args.specs, concurrency, "concurrent")
        calls_con = len(server.chat_requests) - calls_seq
        peak = server.max_in_flight
    print(f"{args.specs} rollouts of {args.specs} specs, 3 turns each, {args.latency_ms:g} ms per answer")
    print(f"sequential (peer): {t_seq:.2f} s, {calls_seq} calls, {ok_seq} finished")
    print(f"concurrent up to {concurrency} (graphforge): {t_con:.2f} s, {calls_con} calls, "
          f"{ok_con} finished, at most {peak} calls in flight")
    print(f"ratio: {t_seq / t_con:.1f}x faster")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

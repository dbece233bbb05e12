"""Overhead of the chat client and the Python sandbox, against named minimal peers on the same data.

Peers: raw ``httpx`` POSTs (sync client reused; async with a semaphore) to the same scripted
OpenAI-compatible server, and a plain ``subprocess.run([python, -c, code])`` without any isolation.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from bench import check
from graphforge.agent.sandbox import run_python
from graphforge.llm import OpenAICompatibleChatModel
from tests.support.llm_server import ScriptedLLMServer, slow, text


def _timed(fn: object) -> float:
    started = time.perf_counter()
    fn()  # type: ignore[operator]
    return time.perf_counter() - started


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="rollout_bench")
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--fanout", type=int, default=64)
    parser.add_argument("--delay-ms", type=float, default=20.0)
    parser.add_argument("--sandbox-runs", type=int, default=8)
    args = parser.parse_args(argv)

    with ScriptedLLMServer() as server, tempfile.TemporaryDirectory() as tmp:
        body = {"model": "m", "messages": [{"role": "user", "content": "ping"}]}
        url = f"{server.url}/chat/completions"

        server.responder = lambda request: text("pong")

        def peer_sync() -> None:
            with httpx.Client() as client:
                for _ in range(args.calls):
                    client.post(url, json=body).json()

        model = OpenAICompatibleChatModel(base_url=server.url, model="m", cache_dir=None)

        def ours_sync() -> None:
            for _ in range(args.calls):
                model.invoke("ping")

        t_peer, t_ours = _timed(peer_sync), _timed(ours_sync)
        print(f"sequential {args.calls} calls: raw httpx {t_peer:.2f} s, graphforge {t_ours:.2f} s, "
              f"ratio {t_ours / t_peer:.2f}x")

        server.responder = lambda request: slow(text("pong"), args.delay_ms / 1000)

        async def peer_async() -> None:
            gate = asyncio.Semaphore(8)
            async with httpx.AsyncClient() as client:
                async def one() -> None:
                    async with gate:
                        (await client.post(url, json=body)).json()
                await asyncio.gather(*(one() for _ in range(args.fanout)))

        fan = OpenAICompatibleChatModel(base_url=server.url, model="m", concurrency=8,
                                        cache_dir=Path(tmp) / "cache")

        async def ours_async() -> None:
            await asyncio.gather(*(fan.ainvoke(f"q{i}") for i in range(args.fanout)))

        t_peer = _timed(lambda: asyncio.run(peer_async()))
        t_ours = _timed(lambda: asyncio.run(ours_async()))
        t_cached = _timed(lambda: asyncio.run(ours_async()))
        print(f"fan-out {args.fanout} calls, concurrency 8, {args.delay_ms:g} ms server latency: raw httpx "
              f"{t_peer:.2f} s, graphforge {t_ours:.2f} s (ratio {t_ours / t_peer:.2f}x), cached re-run "
              f"{t_cached:.3f} s ({t_peer / t_cached:.0f}x faster than the peer)")

        work = Path(tmp) / "ws"
        work.mkdir()
        for i in range(20):
            (work / f"file{i}.csv").write_text("a,b\n" + "1,2\n" * 500)
        code = "import csv, glob\nprint(sum(len(list(csv.reader(open(f)))) for f in glob.glob('*.csv')))\n"

        def peer_sandbox() -> None:
            for _ in range(args.sandbox_runs):
                subprocess.run([sys.executable, "-c", code], cwd=work, capture_output=True, check=True)

        def ours_sandbox() -> None:
            for _ in range(args.sandbox_runs):
                check(run_python(code, work).ok, "the sandboxed script failed")

        t_peer, t_ours = _timed(peer_sandbox), _timed(ours_sandbox)
        print(f"run_python x{args.sandbox_runs} on a 20-file workspace: plain subprocess {t_peer:.2f} s, "
              f"sandbox (copy + rlimits + netns) {t_ours:.2f} s, ratio {t_ours / t_peer:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""One loop, two callers: a coroutine driven without an event loop (graphforge.llm.sync)."""

from __future__ import annotations

import asyncio

import pytest

from graphforge.llm.sync import ready, run_sync


async def _retrying(send: object, sleep: object) -> tuple[str, list[float]]:
    waited: list[float] = []
    for attempt in range(3):
        answer = await send(attempt)  # type: ignore[operator]
        if answer == "ok":
            return answer, waited
        waited.append(0.01 * (attempt + 1))
        await sleep(waited[-1])  # type: ignore[operator]
    return "gave up", waited


def test_the_same_loop_runs_with_blocking_calls_and_with_awaitables() -> None:
    answers = {0: "busy", 1: "busy", 2: "ok"}
    slept: list[float] = []
    sync = run_sync(_retrying(ready(answers.get), ready(slept.append)))

    async def send(attempt: int) -> str | None:
        await asyncio.sleep(0)
        return answers.get(attempt)

    assert sync == asyncio.run(_retrying(send, asyncio.sleep)) == ("ok", [0.01, 0.02])
    assert slept == [0.01, 0.02]


def test_a_coroutine_that_suspends_is_refused() -> None:
    with pytest.raises(RuntimeError, match="suspended"):
        run_sync(asyncio.sleep(0))

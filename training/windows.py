"""Long demonstrations cut into training windows that each start as an attempt starts."""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any


def windows(msgs: list[dict[str, Any]], max_tokens: int,
            size: Callable[[list[dict[str, Any]]], int]) -> list[list[dict[str, Any]]]:
    """A conversation cut into training windows of at most ``max_tokens`` (``size`` gives the tokens of a
    list of messages as the served template renders them), in order; the whole conversation when it fits.

    Every window holds the turns before the first reply (system, task) and the first turn (the first call
    and its result), so it starts as an attempt starts, then the turns it trains: as many consecutive later
    turns (a reply and the tool results that answer it) as fit; together the windows cover every turn. The
    turns between the first and those it trains are there too, as the agent loop shows a conversation past
    its context: each reply as it was (shown, not trained) and each result replaced by the loop's note that
    it was dropped (``graphforge.agent.loop.DROPPED``). A window that skipped them taught "after the
    listing, write and say done" (run 15: tuned players listed the folder, then stopped). Only where even
    the replies do not fit are the oldest of them left out. A turn too long alone is still one window (the
    trainer cuts its tail). The first window trains the opening reply; later ones mark it ``context_only``
    (printed, not trained, by the training template).

    A reply whose every call failed (each answered ``ERROR: ...``, such as a slip's misremembered path) is
    context too: the demonstration shows the mistake and trains the repair that follows it. Trained as a
    target, a slip taught the model to ask for a made-up path (run 16's tuned players). A window left with
    nothing to train is not returned.
    """
    from graphforge.agent.loop import DROPPED

    msgs = mark_failed(msgs)
    first_reply = next((i for i, m in enumerate(msgs) if m["role"] == "assistant"), len(msgs))
    head, rest = msgs[:first_reply], msgs[first_reply:]
    turns: list[list[dict[str, Any]]] = []
    for m in rest:
        if m["role"] == "assistant" or not turns:
            turns.append([])
        turns[-1].append(m)
    if len(turns) <= 1:
        return [w for w in [head + sum(turns, [])] if _trains(w)]
    opening = head + turns[0]
    # In every window but the first the opening reply is context: trained once, not once per window (a
    # reply trained in every window was what the tuned model then said at every turn: measured).
    repeated = head + [dict(m, context_only=True) if m["role"] == "assistant" else m for m in turns[0]]

    def elided(a: int, b: int) -> list[dict[str, Any]]:  # turns a..b-1 as context, their results dropped
        return [dict(m, context_only=True) if m["role"] == "assistant" else dict(m, content=DROPPED)
                for t in turns[a:b] for m in t]

    out: list[list[dict[str, Any]]] = []
    end = len(turns)
    while end > 1:
        start = end - 1  # a turn too long alone is still one window (the trainer cuts its tail)
        while start > 1 and size(repeated + elided(1, start - 1)
                                 + sum(turns[start - 1:end], [])) <= max_tokens:
            start -= 1
        kept = 1  # the first elided turn kept: later when even the elided replies do not fit
        while kept < start and size(repeated + elided(kept, start) + sum(turns[start:end], [])) > max_tokens:
            kept += 1
        out.append((opening if start == 1 else repeated + elided(kept, start)) + sum(turns[start:end], []))
        end = start
    return [w for w in out[::-1] if _trains(w)]


def mark_failed(msgs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages with each reply whose tool calls all failed marked ``context_only`` (shown, not trained).

    A call failed when the tool result that answers it is the tools' error text
    (``graphforge.agent.tools.ERROR``); its results are the tool messages right after the reply, matched by
    ``tool_call_id`` (the agent loop gives every turn's first call the same id, so ids are only unique
    within a turn). A reply without calls, or with one call that worked, is unchanged.
    """
    from graphforge.agent.tools import ERROR
    from graphforge.llm.protocol import call_results

    out = [dict(m) for m in msgs]
    for m, results in zip(out, call_results(msgs), strict=True):
        ids = [str(c.get("id")) for c in m.get("tool_calls") or []] if m["role"] == "assistant" else []
        if ids and all(results.get(c, "").startswith(f"{ERROR}:") for c in ids):
            m["context_only"] = True
    return out


def _trains(window: list[dict[str, Any]]) -> bool:
    return any(m["role"] == "assistant" and not m.get("context_only") for m in window)


def within_budget(demonstrations: list[list[list[dict[str, Any]]]], budget: int,
                  writes: Callable[[list[dict[str, Any]]], bool]) -> list[tuple[int, int]]:
    """Which windows a run that trains on ``budget`` of them sees, as (demonstration, window) pairs in order.

    A run shorter than one epoch samples its windows at random, and most windows are reads (a demonstration
    reads for many turns and writes once): run 11's tuned players saw about one write in five windows and
    never wrote a file. So the budget goes first to the windows whose trained turns write (``writes``), then
    to each demonstration's first window (the only one that trains the opening reply), then to the rest,
    evenly spaced; all windows when they fit.
    """
    every = [(d, w) for d, ws in enumerate(demonstrations) for w in range(len(ws))]
    if budget >= len(every):
        return every
    chosen = [p for p in every if writes(demonstrations[p[0]][p[1]])][:budget]
    chosen += [p for p in every if p[1] == 0 and p not in chosen][: budget - len(chosen)]
    rest = [p for p in every if p not in chosen]
    need = budget - len(chosen)
    chosen += [rest[i * len(rest) // need] for i in range(need)] if need > 0 else []
    return sorted(chosen)


def trains_call(window: list[dict[str, Any]], names: Collection[str]) -> bool:
    """Whether a window trains a call to one of the tools ``names``: a reply marked ``context_only`` (the
    opening reply repeated in later windows) is shown, not trained, and does not count."""
    return any(c.get("function", c).get("name") in names
               for m in window if m["role"] == "assistant" and not m.get("context_only")
               for c in m.get("tool_calls") or [])

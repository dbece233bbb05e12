"""Long demonstrations cut into training windows that each start as an attempt starts."""

from __future__ import annotations

from typing import Any

from graphforge.agent.loop import DROPPED
from training.windows import trains_call, windows, within_budget

HEAD = [{"role": "system", "content": "s" * 50}, {"role": "user", "content": "task " * 20}]


def _turn(i: int, result: int) -> list[dict[str, Any]]:
    call = {"id": f"c{i}", "type": "function",
            "function": {"name": "read_file", "arguments": f'{{"n": {i}}}'}}
    return [{"role": "assistant", "content": f"step {i}", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"c{i}", "content": "x" * result}]


def _size(messages: list[dict[str, Any]]) -> int:
    return sum(len(m.get("content") or "") + 10 for m in messages)


def test_a_conversation_that_fits_is_one_window() -> None:
    msgs = HEAD + sum((_turn(i, 30) for i in range(4)), []) + [{"role": "assistant", "content": "done"}]
    assert windows(msgs, 10_000, _size) == [msgs]


def _trained(window: list[dict[str, Any]]) -> list[str]:
    return [m["content"] for m in window if m["role"] == "assistant" and not m.get("context_only")]


def test_every_window_starts_as_an_attempt_and_together_they_cover_every_turn() -> None:
    turns = [_turn(i, 300) for i in range(8)]
    msgs = HEAD + sum(turns, []) + [{"role": "assistant", "content": "done"}]
    out = windows(msgs, 1200, _size)
    assert len(out) > 1
    opening = HEAD + turns[0]
    for i, w in enumerate(out):
        # The task, then the first call and its result; its reply trained in the first window only.
        assert [{k: v for k, v in m.items() if k != "context_only"} for m in w[: len(opening)]] == opening
        assert bool(w[len(HEAD)].get("context_only")) is (i > 0)
        assert _size(w) <= 1200
    # Each later reply trained in exactly one window, in order.
    assert [r for w in out for r in _trained(w)] == ["step 0"] + [f"step {i}" for i in range(1, 8)] + ["done"]


def test_a_later_window_shows_every_earlier_reply_with_its_result_dropped() -> None:
    turns = [_turn(i, 300) for i in range(12)]
    msgs = HEAD + sum(turns, []) + [{"role": "assistant", "content": "done"}]
    every = [m["content"] for m in msgs if m["role"] == "assistant"]
    out = windows(msgs, 2000, _size)
    assert len(out) > 2
    for w in out:
        replies = [m["content"] for m in w if m["role"] == "assistant"]
        assert replies == every[: len(replies)]  # no turn skipped between the opening and the trained ones
        trained = _trained(w)
        first = next(i for i, m in enumerate(w) if m["role"] == "assistant" and m["content"] == trained[0])
        results = [m["content"] for m in w[len(HEAD) + 2:first] if m["role"] == "tool"]
        assert all(r == DROPPED for r in results)  # as the agent loop shows results past its context
        assert all(m.get("context_only") for m in w[len(HEAD):first] if m["role"] == "assistant")
        assert w[len(HEAD) + 1]["content"] == "x" * 300  # the first result (the listing) is kept


def test_where_even_the_earlier_replies_do_not_fit_the_oldest_are_left_out() -> None:
    turns = [_turn(0, 10)] + [_turn(i, 10) for i in range(1, 30)] + [_turn(30, 700)]
    msgs = HEAD + sum(turns, [])
    last = windows(msgs, 2000, _size)[-1]
    assert _trained(last) == ["step 30"] and _size(last) <= 2000
    replies = [int(m["content"].split()[1]) for m in last if m["role"] == "assistant"]
    # the opening, then the latest earlier replies that fit, without a gap up to the trained one
    assert replies[0] == 0 and 1 < replies[1] and replies[1:] == list(range(replies[1], 31))


def test_a_turn_too_long_alone_is_still_its_own_window() -> None:
    turns = [_turn(0, 10), _turn(1, 5000), _turn(2, 10)]
    msgs = HEAD + sum(turns, [])
    out = windows(msgs, 1000, _size)
    assert [_trained(w) for w in out] == [["step 0", "step 1"], ["step 2"]]
    assert out[0][len(HEAD) + 2:] == turns[1]
    assert "context_only" not in out[0][len(HEAD)] and out[1][len(HEAD)]["context_only"] is True
    # the long turn before it is shown with its result dropped
    assert out[1][-3]["content"] == DROPPED and out[1][-2:] == turns[2]


def _w(name: str) -> list[dict[str, Any]]:
    return [{"role": "assistant", "content": name}]


def _writes(window: list[dict[str, Any]]) -> bool:
    return window[0]["content"].startswith("write")


def test_a_short_budget_trains_every_write_then_every_opening_then_the_rest_evenly() -> None:
    demos = [[_w("open 0"), _w("read 0a"), _w("read 0b"), _w("write 0")],
             [_w("open 1"), _w("read 1a"), _w("write 1")],
             [_w("open 2"), _w("read 2a"), _w("read 2b"), _w("read 2c")]]
    picked = within_budget(demos, 6, _writes)
    names = [demos[d][w][0]["content"] for d, w in picked]
    assert picked == sorted(picked) and len(set(picked)) == 6
    assert {"write 0", "write 1", "open 0", "open 1", "open 2"} <= set(names)
    assert within_budget(demos, 2, _writes) == [(0, 3), (1, 2)]
    assert within_budget(demos, 4, _writes) == [(0, 0), (0, 3), (1, 0), (1, 2)]


def test_a_budget_as_large_as_the_windows_takes_them_all_in_order() -> None:
    demos = [[_w("open 0"), _w("write 0")], [_w("open 1")]]
    assert within_budget(demos, 3, _writes) == within_budget(demos, 10, _writes) == [(0, 0), (0, 1), (1, 0)]


def test_a_window_trains_a_call_only_in_its_trained_replies() -> None:
    write = {"id": "w", "type": "function", "function": {"name": "write_file", "arguments": "{}"}}
    opening = {"role": "assistant", "content": "", "tool_calls": [write]}
    later = _turn(1, 10)
    assert trains_call(HEAD + [opening] + later, {"write_file"})
    # The same opening shown as context in a later window is not trained there.
    assert not trains_call(HEAD + [dict(opening, context_only=True)] + later, {"write_file"})
    assert trains_call(HEAD + [dict(opening, context_only=True)] + later, {"read_file", "write_file"})


def _failed(i: int) -> list[dict[str, Any]]:
    turn = _turn(i, 0)
    turn[1]["content"] = f"ERROR: no file 'n{i}.md'; the closest that exist: 'N{i}.md'"
    return turn


def test_a_reply_whose_calls_failed_is_shown_but_never_trained() -> None:
    msgs = HEAD + _turn(0, 30) + _failed(1) + _turn(2, 30) + [{"role": "assistant", "content": "done"}]
    (only,) = windows(msgs, 10_000, _size)
    assert _trained(only) == ["step 0", "step 2", "done"]
    assert [m["content"] for m in only if m["role"] == "assistant"] == ["step 0", "step 1", "step 2", "done"]
    # cut into windows, the failed reply is still trained nowhere and its repair once
    cut = windows(HEAD + _turn(0, 30) + _failed(1) + _turn(2, 600) + _turn(3, 600), 1000, _size)
    assert len(cut) > 1 and [r for w in cut for r in _trained(w)] == ["step 0", "step 2", "step 3"]


def test_a_window_that_would_train_only_a_failed_reply_is_left_out() -> None:
    msgs = HEAD + _turn(0, 10) + _turn(1, 900) + _failed(2) + _turn(3, 900)
    out = windows(msgs, 1000, _size)
    assert all(_trained(w) for w in out)
    assert [r for w in out for r in _trained(w)] == ["step 0", "step 1", "step 3"]


def test_a_reply_with_one_call_that_worked_is_trained() -> None:
    both = _turn(1, 20)
    bad = {"id": "bad", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
    both[0]["tool_calls"].append(bad)
    both.append({"role": "tool", "tool_call_id": "bad", "content": "ERROR: no file 'x'"})
    (only,) = windows(HEAD + _turn(0, 10) + both, 10_000, _size)
    assert _trained(only) == ["step 0", "step 1"]


def test_call_ids_repeated_across_turns_are_matched_within_each_turn() -> None:
    """The agent loop names every turn's call call_0: a later failure must not mark an earlier success."""
    ok, bad = _turn(0, 20), _failed(1)
    for turn in (ok, bad):
        turn[0]["tool_calls"][0]["id"] = turn[1]["tool_call_id"] = "call_0"
    (only,) = windows(HEAD + ok + bad + [{"role": "assistant", "content": "done"}], 10_000, _size)
    assert _trained(only) == ["step 0", "done"]

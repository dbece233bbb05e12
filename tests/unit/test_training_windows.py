"""Long demonstrations cut into training windows that each start as an attempt starts."""

from __future__ import annotations

from typing import Any

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
    replies = [m["content"] for w in out for m in w[len(opening):] if m["role"] == "assistant"]
    # Each later reply in exactly one window, in order.
    assert replies == [f"step {i}" for i in range(1, 8)] + ["done"]


def test_a_turn_too_long_alone_is_still_its_own_window() -> None:
    turns = [_turn(0, 10), _turn(1, 5000), _turn(2, 10)]
    msgs = HEAD + sum(turns, [])
    out = windows(msgs, 1000, _size)
    assert [w[len(HEAD) + 2:] for w in out] == [turns[1], turns[2]]
    assert "context_only" not in out[0][len(HEAD)] and out[1][len(HEAD)]["context_only"] is True


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

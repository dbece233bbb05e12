"""The closed loop's pairs: the paper's rule (missing or invalid deliverables lose) and Q alone, tallied."""

from __future__ import annotations

from bench.closed_loop import budget_for, comparisons, pair_tallies

PLAYERS = ["base", "tuned"]
# s1: base's file fails the checks, tuned's passes with invented records (Q below 0); s2: neither passes;
# s3: both pass, tuned higher by more than 0.02.
RESULTS = [
    {"spec_id": "s1", "player": "base", "valid": False, "q": 0.0},
    {"spec_id": "s1", "player": "tuned", "valid": True, "q": -0.17},
    {"spec_id": "s2", "player": "base", "valid": False, "q": 0.0},
    {"spec_id": "s2", "player": "tuned", "valid": False, "q": 0.0},
    {"spec_id": "s3", "player": "base", "valid": True, "q": 0.30},
    {"spec_id": "s3", "player": "tuned", "valid": True, "q": 0.45},
]


def test_pairs_by_the_rubric_count_an_invalid_deliverable_as_a_loss() -> None:
    pairs = comparisons(RESULTS, PLAYERS)
    assert [(p["task_id"], p["winner"], p["decided_by"]) for p in pairs] == [
        ("s1", "b", "validity"), ("s2", "tie", "validity"), ("s3", "b", "q")]
    assert pair_tallies(pairs) == {"base vs tuned": {"wins": 0, "losses": 2, "ties": 1, "by_validity": 1}}


def test_pairs_by_q_alone_let_a_missing_file_beat_invented_content() -> None:
    pairs = comparisons(RESULTS, PLAYERS, q_only=True)
    assert [(p["task_id"], p["winner"]) for p in pairs] == [("s1", "a"), ("s2", "tie"), ("s3", "b")]
    assert pair_tallies(pairs)["base vs tuned"]["by_validity"] == 0


def test_reply_budgets_hold_the_size_with_room_in_steps_of_64() -> None:
    assert [budget_for(n) for n in (0, 32, 33, 978, 3090)] == [64, 64, 128, 1024, 3136]

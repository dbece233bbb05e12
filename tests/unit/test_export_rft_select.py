"""RFT selection rules: K candidates per query, best valid per arm, one shared query set."""

from __future__ import annotations

from graphforge.export.rft_select import Candidate, JudgmentView, SelectionOptions, group_by_query, select
from graphforge.models.judge import JudgeArm


def cand(
    spec: str,
    tid: str,
    anchored: float | None,
    unanchored: float | None,
    ok: bool = True,
    status: str = "judged",
    rnd: float | None = None,
) -> Candidate:
    judgments = [
        JudgmentView(judgment_id=f"{tid}-{arm}", arm=arm, q=q, deliverables_ok=ok)
        for arm, q in (("anchored", anchored), ("unanchored", unanchored), ("random", rnd))
        if q is not None
    ]
    return Candidate(spec_id=spec, trajectory_id=tid, status=status, judgments=judgments)


POOL = [
    cand("a", "a1", 0.96, 0.50),
    cand("a", "a2", 0.99, 0.60, ok=False),
    cand("a", "a3", 0.97, 0.90),
    cand("a", "a4", 0.10, 0.95, status="discarded"),
    cand("b", "b1", 0.99, 0.99),
    cand("b", "b2", 0.98, 0.97),
    cand("b", "b3", 0.2, 0.2),
    cand("b", "b4", 0.3, 0.3),
    cand("b", "b5", 1.0, 1.0),  # five candidates: the first four count
    cand("c", "c1", 0.99, None),
    cand("c", "c2", 0.5, 0.5),
    cand("c", "c3", 0.5, 0.5),
    cand("c", "c4", 0.5, 0.5),
    cand("d", "d1", 0.99, 0.99),
    cand("e", "e1", 0.95, 0.99),
    cand("e", "e2", 0.9, 0.99),
    cand("e", "e3", 0.9, 0.9),
    cand("e", "e4", 0.9, 0.9),
]
ARMS = ["anchored", "unanchored"]


def run(arm: JudgeArm, **options: object):  # type: ignore[no-untyped-def]
    return select(group_by_query(POOL), arm, SelectionOptions(**options), ARMS)  # type: ignore[arg-type]


def test_shared_query_set_comes_from_the_anchored_rule() -> None:
    anchored = run(JudgeArm.ANCHORED)
    assert anchored.queries == ["a", "b"]
    assert anchored.queries_over_k == ["b"] and anchored.queries_incomplete == ["c"]
    assert anchored.queries_under_k == ["d"]
    assert anchored.queries_below_threshold == ["e"]  # 0.95 is not above the 0.95 threshold
    for arm in JudgeArm:
        assert run(arm).queries == anchored.queries


def test_each_arm_picks_its_best_valid_candidate() -> None:
    # a2 has the top anchored Q but failed its deliverables; a4 was discarded; b5 is beyond K.
    assert [p.trajectory_id for p in run(JudgeArm.ANCHORED).picks] == ["a3", "b1"]
    assert [p.trajectory_id for p in run(JudgeArm.UNANCHORED).picks] == ["a3", "b1"]
    picks = run(JudgeArm.RANDOM, seed=0).picks
    assert all(p.trajectory_id in {"a1", "a3", "b1", "b2", "b3", "b4"} for p in picks)
    assert picks == run(JudgeArm.RANDOM, seed=0).picks  # seeded: reproducible
    seeds = {tuple(p.trajectory_id for p in run(JudgeArm.RANDOM, seed=s).picks) for s in range(20)}
    assert len(seeds) > 1  # and actually random across seeds


def test_unanchored_tie_goes_to_the_smaller_id() -> None:
    pool = [cand("q", f"q{i}", 0.99, 0.9) for i in range(4)]
    picks = select(group_by_query(pool), JudgeArm.UNANCHORED, SelectionOptions(), ARMS).picks
    assert [p.trajectory_id for p in picks] == ["q0"]


def test_stored_random_judgments_drive_the_random_arm() -> None:
    pool = [cand("q", f"q{i}", 0.99, 0.9, rnd=r) for i, r in enumerate([0.1, 0.7, 0.3, 0.2])]
    pick = select(group_by_query(pool), JudgeArm.RANDOM, SelectionOptions(), ARMS).picks[0]
    assert (pick.trajectory_id, pick.q) == ("q1", 0.7)


def test_independent_mode_thresholds_each_arm_on_its_own_q() -> None:
    unanchored = run(JudgeArm.UNANCHORED, shared_queries=False)
    assert unanchored.queries == ["b", "e"]  # a's best valid unanchored Q is 0.90
    assert [p.trajectory_id for p in unanchored.picks] == ["b1", "e1"]


def test_k_and_threshold_are_options() -> None:
    one = run(JudgeArm.ANCHORED, k=1)  # only each query's first candidate (by id) counts
    assert one.queries == ["a", "b", "d"] and one.queries_over_k == ["a", "b", "c", "e"]
    assert run(JudgeArm.ANCHORED, threshold=0.9).queries == ["a", "b", "e"]

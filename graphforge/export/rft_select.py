"""Rejection fine-tuning selection: per query K candidates, one pick per arm, one shared query set (pure).

The paper's RFT study compares three selection rules on the *same* queries and candidate pools:
the anchored judge's best valid candidate, the unanchored judge's best valid candidate, and a random
valid candidate (random-of-K). A query enters the shared set when it has K candidates, every candidate
is judged by every judged arm present in the pool, and the reference arm (anchored) keeps its best
valid candidate with Q above the threshold (0.95); every arm then picks inside that same set. With
``shared_queries=False`` each arm instead applies the threshold to its own Q (an independent study).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import groupby

from pydantic import BaseModel, ConfigDict, Field

from graphforge.models.base import stable_hash
from graphforge.models.judge import JudgeArm

JUDGED_ARMS = (JudgeArm.ANCHORED, JudgeArm.UNANCHORED)
# A failed rollout or one cleaned for degenerate tool use is never a valid candidate.
INVALID_STATUSES = frozenset({"failed", "discarded"})


class JudgmentView(BaseModel):
    judgment_id: str
    judge: str | None = None
    arm: str
    q: float
    deliverables_ok: bool
    created_at: str | None = None


class Candidate(BaseModel):
    """One row of ``export/stream_rft_candidates``."""

    spec_id: str
    trajectory_id: str
    status: str
    judgments: list[JudgmentView] = Field(default_factory=list)

    def judgment(self, arm: str, judge: str | None = None) -> JudgmentView | None:
        """The latest judgment of this arm (optionally by one judge); ties broken by judgment_id."""
        mine = [j for j in self.judgments if j.arm == arm and (judge is None or j.judge == judge)]
        return max(mine, key=lambda j: (j.created_at or "", j.judgment_id), default=None)


class Pick(BaseModel):
    spec_id: str
    trajectory_id: str
    q: float | None  # the arm's Q of the pick (None: random pick without random-arm judgments)
    rule: str


class SelectionOptions(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    k: int = Field(4, ge=1)
    threshold: float = 0.95
    reference_arm: JudgeArm = JudgeArm.ANCHORED
    shared_queries: bool = True
    seed: int = 0  # random-of-K
    judge: str | None = None  # only judgments by this judge (None: the latest per arm)


class Selection(BaseModel):
    arm: JudgeArm
    options: SelectionOptions
    compared_arms: list[str]
    queries_seen: int
    queries_under_k: list[str]
    queries_over_k: list[str]  # had more than K candidates; the first K by trajectory_id were used
    queries_incomplete: list[str]  # some candidate lacked a judgment of a compared arm
    queries_below_threshold: list[str]
    queries: list[str]  # the query set (shared by every arm when shared_queries)
    picks: list[Pick]  # this arm's picks, one per query that had a valid candidate for it
    queries_without_valid_pick: list[str]

    def summary(self) -> dict[str, object]:
        return {
            "arm": self.arm.value,
            "queries_seen": self.queries_seen,
            "queries": len(self.queries),
            "picks": len(self.picks),
            "under_k": len(self.queries_under_k),
            "over_k": len(self.queries_over_k),
            "incomplete": len(self.queries_incomplete),
            "below_threshold": len(self.queries_below_threshold),
            "without_valid_pick": len(self.queries_without_valid_pick),
            "compared_arms": self.compared_arms,
        }


def group_by_query(candidates: Iterable[Candidate]) -> Iterator[tuple[str, list[Candidate]]]:
    """Consecutive candidates of one spec (the query streams them ordered by spec_id, trajectory_id)."""
    for spec_id, group in groupby(candidates, key=lambda c: c.spec_id):
        yield spec_id, sorted(group, key=lambda c: c.trajectory_id)


def is_valid(c: Candidate, arm: str, options: SelectionOptions) -> bool:
    """Valid: not failed/discarded and the arm's judgment says the deliverables passed their checks."""
    if c.status in INVALID_STATUSES:
        return False
    j = c.judgment(arm, options.judge)
    return j is not None and j.deliverables_ok


def best(cands: Sequence[Candidate], arm: str, options: SelectionOptions) -> Pick | None:
    """The valid candidate with the highest Q under ``arm``; ties go to the smaller trajectory_id."""
    scored = [
        (j.q, c)
        for c in cands
        if is_valid(c, arm, options) and (j := c.judgment(arm, options.judge)) is not None
    ]
    if not scored:
        return None
    q, c = min(scored, key=lambda qc: (-qc[0], qc[1].trajectory_id))
    return Pick(spec_id=c.spec_id, trajectory_id=c.trajectory_id, q=q, rule=f"best valid by {arm} Q")


def random_pick(cands: Sequence[Candidate], options: SelectionOptions) -> Pick | None:
    """Random-of-K among valid candidates.

    Uses stored random-arm judgments when every candidate has one (the judge's own random control);
    otherwise a seeded hash order, so the same graph and seed always pick the same trajectory.
    Validity comes from the reference arm's deterministic deliverable checks.
    """
    if all(c.judgment(JudgeArm.RANDOM.value, options.judge) is not None for c in cands):
        return best(cands, JudgeArm.RANDOM.value, options)
    valid = [c for c in cands if is_valid(c, options.reference_arm.value, options)]
    if not valid:
        return None
    c = min(valid, key=lambda c: stable_hash(options.seed, c.spec_id, c.trajectory_id))
    return Pick(
        spec_id=c.spec_id,
        trajectory_id=c.trajectory_id,
        q=None,
        rule=f"random valid candidate (seed {options.seed})",
    )


def pick_for(arm: JudgeArm, cands: Sequence[Candidate], options: SelectionOptions) -> Pick | None:
    return random_pick(cands, options) if arm is JudgeArm.RANDOM else best(cands, arm.value, options)


def compared_arms_of(candidates: Iterable[Candidate]) -> list[str]:
    """Judged arms present anywhere in the pool: every shared query must be judged by all of them."""
    present = {j.arm for c in candidates for j in c.judgments}
    return [a.value for a in JUDGED_ARMS if a.value in present]


def select(
    groups: Iterable[tuple[str, list[Candidate]]],
    arm: JudgeArm,
    options: SelectionOptions,
    compared_arms: Sequence[str],
) -> Selection:
    """Apply the query rule and the arm's pick rule to every query's candidates."""
    under: list[str] = []
    over: list[str] = []
    incomplete: list[str] = []
    below: list[str] = []
    queries: list[str] = []
    picks: list[Pick] = []
    no_pick: list[str] = []
    seen = 0
    for spec_id, cands in groups:
        seen += 1
        if len(cands) < options.k:
            under.append(spec_id)
            continue
        if len(cands) > options.k:
            over.append(spec_id)
            cands = cands[: options.k]
        if any(c.judgment(a, options.judge) is None for c in cands for a in compared_arms):
            incomplete.append(spec_id)
            continue
        if options.shared_queries:
            ref = best(cands, options.reference_arm.value, options)
            if ref is None or ref.q is None or ref.q <= options.threshold:
                below.append(spec_id)
                continue
            queries.append(spec_id)
            pick = ref if arm is options.reference_arm else pick_for(arm, cands, options)
        else:
            pick = pick_for(arm, cands, options)
            if pick is not None and pick.q is not None and pick.q <= options.threshold:
                below.append(spec_id)
                continue
            queries.append(spec_id)
        if pick is None:
            no_pick.append(spec_id)
        else:
            picks.append(pick)
    return Selection(
        arm=arm,
        options=options,
        compared_arms=list(compared_arms),
        queries_seen=seen,
        queries_under_k=under,
        queries_over_k=over,
        queries_incomplete=incomplete,
        queries_below_threshold=below,
        queries=queries,
        picks=picks,
        queries_without_valid_pick=no_pick,
    )

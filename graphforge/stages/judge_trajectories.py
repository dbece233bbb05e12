"""Stage 8a: judge trajectories against their spec (deliverable gate, chat-model judge with anchors gated by
the deterministic verifiers, candidates of one spec graded jointly), Q. No verdict: judged again next run."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from graphforge.context import StageContext
from graphforge.errors import JudgeError
from graphforge.graphdb import cypher
from graphforge.judge import JudgeView, load_view
from graphforge.judge.core import ajudge_candidates, judge_name
from graphforge.judge.llm_verifier import VerdictUnavailable
from graphforge.llm.records import CallTotals, LLMCallRecord
from graphforge.models.judge import JudgeArm, Judgment
from graphforge.models.trajectory import TrajectoryStatus
from graphforge.sharding import Shard
from graphforge.stores import trajectories as store

GET_TRAJECTORIES_TO_JUDGE = cypher.load("judge/get_trajectories_to_judge")


class JudgeTrajectoriesParams(BaseModel):
    """Options of the judge_trajectories stage."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    arm: JudgeArm = JudgeArm.ANCHORED
    spec_ids: list[str] | None = None
    trajectory_ids: list[str] | None = None
    statuses: list[str] = Field(default_factory=lambda: ["materialised", "judged"])
    seed: int = Field(0, description="The random arm's seed.")
    use_llm: bool = Field(True, description="Every criterion goes to the chat model when one is configured.")
    k: int = Field(4, ge=1,
        description="Candidates of one spec graded jointly per chat-model call (1: one at a time).")
    # Only the trajectories whose spec id hashes into this shard: a spec's K candidates stay in one process,
    # because they are graded jointly.
    shard: Shard | None = None


class JudgedRow(BaseModel):
    trajectory_id: str
    spec_id: str
    q: float
    deliverables_ok: bool
    reason: str


class JudgeTrajectoriesResult(BaseModel):
    """What the judge_trajectories stage did."""

    arm: JudgeArm
    judge: str
    judged: int
    losses: int  # missing or invalid deliverables: Q = 0, judge not asked
    mean_q: float | None
    judgments: list[JudgedRow]
    # Not stored: the chat model failed on some criterion, so the trajectory keeps its status and the next
    # run judges it again instead of admitting or rejecting it on a verdict that was never given.
    retry_later: list[str] = Field(default_factory=list)
    retry_reasons: dict[str, str] = Field(default_factory=dict)  # trajectory id -> why no verdict was given
    llm: CallTotals = Field(default_factory=CallTotals)  # chat-model calls of this run (cached ones counted)


def run(ctx: StageContext, params: JudgeTrajectoriesParams) -> JudgeTrajectoriesResult:
    """Judge each selected trajectory against its spec's criteria (deterministic checks, anchored
    verifiers, the chat-model judge) and store the judgments with their Q."""
    rows = ctx.graph.read_dicts(GET_TRAJECTORIES_TO_JUDGE, statuses=params.statuses, spec_ids=params.spec_ids,
                                trajectory_ids=params.trajectory_ids)
    if params.shard is not None:
        rows = [r for r in rows if params.shard.owns(str(r["spec_id"]))]
    llm = None
    if params.use_llm and params.arm is not JudgeArm.RANDOM:
        from graphforge.llm import chat_model

        llm = chat_model(ctx.settings, temperature=0.0)  # greedy: the same deliverable gets the same verdict
    views: dict[str, JudgeView] = {}
    judgments: list[Judgment] = []
    retry_reasons: dict[str, str] = {}
    ledger: list[LLMCallRecord] = []
    # Deliverables and final messages only: the judge scores those, so transcripts never come into memory.
    trajectories = store.get_deliverables(ctx.graph, [r["trajectory_id"] for r in rows])
    by_spec: dict[str, list[store.DeliverablesRow]] = {}
    for t in trajectories:
        if t.spec_id is None:
            raise JudgeError(f"trajectory {t.trajectory_id} attempts no task spec, so it cannot be judged")
        by_spec.setdefault(t.spec_id, []).append(t)
    chunks: list[tuple[JudgeView, list[store.DeliverablesRow]]] = []
    for spec_id, group in by_spec.items():
        view = views.get(spec_id) or views.setdefault(spec_id, load_view(ctx.graph, spec_id))
        # Joint groups of K in trajectory-id order: the same K candidates RFT selection compares.
        group.sort(key=lambda t: t.trajectory_id)
        chunks += [(view, group[start:start + params.k]) for start in range(0, len(group), params.k)]

    async def judge_all() -> list[list[Judgment] | VerdictUnavailable]:
        async def one(view: JudgeView,
                      chunk: list[store.DeliverablesRow]) -> list[Judgment] | VerdictUnavailable:
            candidates = [(t.trajectory_id, {d.name: Path(d.path) for d in t.deliverables}) for t in chunk]
            # The final message is read for notes to the grader, as every deliverable is.
            messages = {t.trajectory_id: t.last_message for t in chunk}
            try:
                judged = await ajudge_candidates(view, candidates, params.arm, llm=llm, seed=params.seed,
                                                 ledger=ledger, final_messages=messages)
            except VerdictUnavailable as exc:
                return exc
            return [j for j, _ in judged]

        # Every spec's chunks at once; the chat model's GRAPHFORGE_LLM_CONCURRENCY caps the calls in flight.
        return list(await asyncio.gather(*(one(view, chunk) for view, chunk in chunks)))

    for (_, chunk), outcome in zip(chunks, asyncio.run(judge_all()), strict=True):
        if isinstance(outcome, VerdictUnavailable):
            # No verdict is no score: these trajectories keep their status and are judged next run.
            retry_reasons.update({t.trajectory_id: str(outcome) for t in chunk})
        else:
            judgments += outcome
    store.save_judgments(ctx.graph, judgments)
    # Only the admission arm moves a trajectory along the funnel; control arms leave statuses alone.
    if params.arm is JudgeArm.ANCHORED:
        fresh = {r["trajectory_id"] for r in rows if r["status"] == TrajectoryStatus.MATERIALISED.value}
        store.set_status(ctx.graph, [(j.trajectory_id, TrajectoryStatus.JUDGED, j.reason) for j in judgments
                                     if j.trajectory_id in fresh])
    qs = [j.q for j in judgments]
    return JudgeTrajectoriesResult(
        arm=params.arm,
        judge=judge_name(llm, params.arm, params.seed),
        judged=len(judgments),
        losses=sum(not j.deliverables_ok for j in judgments),
        mean_q=round(sum(qs) / len(qs), 4) if qs else None,
        judgments=[
            JudgedRow(
                trajectory_id=j.trajectory_id,
                spec_id=j.spec_id,
                q=j.q,
                deliverables_ok=j.deliverables_ok,
                reason=j.reason,
            )
            for j in judgments
        ],
        retry_later=sorted(retry_reasons),
        retry_reasons=retry_reasons,
        llm=CallTotals.of(ledger),
    )

"""Stage 8a: judge trajectories against their spec (deliverable gate, anchored verifiers, chat model), Q."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from graphforge import cypher, store
from graphforge.context import StageContext
from graphforge.judge import JudgeView, judge_attempt, load_view
from graphforge.judge.core import judge_name
from graphforge.judge.llm_verifier import LLM_FAILED
from graphforge.models.judge import JudgeArm, Judgment
from graphforge.models.trajectory import TrajectoryStatus

GET_TRAJECTORIES_TO_JUDGE = cypher.load("judge/get_trajectories_to_judge")


class JudgeTrajectoriesParams(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    arm: JudgeArm = JudgeArm.ANCHORED
    spec_ids: list[str] | None = None
    trajectory_ids: list[str] | None = None
    statuses: list[str] = Field(default_factory=lambda: ["materialised", "judged"])
    seed: int = 0  # the random arm's seed
    use_llm: bool = True  # qualitative criteria go to the chat model when one is configured


class JudgedRow(BaseModel):
    trajectory_id: str
    spec_id: str
    q: float
    deliverables_ok: bool
    reason: str


class JudgeTrajectoriesResult(BaseModel):
    arm: JudgeArm
    judge: str
    judged: int
    losses: int  # missing or invalid deliverables: Q = 0, judge not asked
    mean_q: float | None
    judgments: list[JudgedRow]
    # Not stored: the chat model failed on some criterion, so the trajectory keeps its status and the next
    # run judges it again instead of admitting or rejecting it on a verdict that was never given.
    retry_later: list[str] = Field(default_factory=list)


def run(ctx: StageContext, params: JudgeTrajectoriesParams) -> JudgeTrajectoriesResult:
    rows = ctx.graph.read_dicts(GET_TRAJECTORIES_TO_JUDGE, statuses=params.statuses, spec_ids=params.spec_ids,
                                trajectory_ids=params.trajectory_ids)
    llm = None
    if params.use_llm and params.arm is not JudgeArm.RANDOM:
        from graphforge.llm import chat_model

        llm = chat_model(ctx.settings, temperature=0.0)  # greedy: the same deliverable gets the same verdict
    views: dict[str, JudgeView] = {}
    judgments: list[Judgment] = []
    retry_later: list[str] = []
    trajectories = store.get_trajectories(ctx.graph, [r["trajectory_id"] for r in rows])
    for t in trajectories:
        assert t.spec_id is not None
        view = views.get(t.spec_id) or views.setdefault(t.spec_id, load_view(ctx.graph, t.spec_id))
        files = {d.name: Path(d.path) for d in t.deliverables}
        judgment, _ = judge_attempt(view, files, params.arm, trajectory_id=t.trajectory_id, llm=llm,
                                    seed=params.seed)
        if any(r.evidence.startswith(LLM_FAILED) for r in judgment.ratings):
            retry_later.append(t.trajectory_id)
        else:
            judgments.append(judgment)
    store.save_judgments(ctx.graph, judgments)
    # Only the admission arm moves a trajectory along the funnel; control arms leave statuses alone.
    if params.arm is JudgeArm.ANCHORED:
        fresh = {r["trajectory_id"] for r in rows if r["status"] == TrajectoryStatus.MATERIALISED.value}
        store.set_status(ctx.graph, [(j.trajectory_id, TrajectoryStatus.JUDGED, j.reason) for j in judgments
                                     if j.trajectory_id in fresh])
    qs = [j.q for j in judgments]
    return JudgeTrajectoriesResult(
        arm=params.arm,
        judge=judge_name(llm),
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
        retry_later=retry_later,
    )

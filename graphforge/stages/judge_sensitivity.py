"""Evaluation: judge sensitivity to perturbed deliverables of admitted trajectories (the paper's table)."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from graphforge.context import StageContext
from graphforge.errors import JudgeError
from graphforge.graphdb import cypher
from graphforge.judge import JudgeView, load_view
from graphforge.judge.perturb import PerturbationKind
from graphforge.judge.sensitivity import (
    SensitivityCase,
    SensitivityRow,
    UnscoredCase,
    cases_for,
    markdown_table,
    summarise,
)
from graphforge.llm.records import CallTotals, LLMCallRecord
from graphforge.models.judge import JudgeArm
from graphforge.stores import trajectories as store

GET_TRAJECTORIES_TO_JUDGE = cypher.load("judge/get_trajectories_to_judge")


class JudgeSensitivityParams(BaseModel):
    """Options of the judge_sensitivity stage."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    arms: list[JudgeArm] = Field(default_factory=lambda: [JudgeArm.ANCHORED, JudgeArm.UNANCHORED])
    kinds: list[PerturbationKind] = Field(default_factory=lambda: list(PerturbationKind))
    spec_ids: list[str] | None = None
    trajectory_ids: list[str] | None = None
    statuses: list[str] = Field(default_factory=lambda: ["admitted"])
    use_llm: bool = True
    # At most this many trajectories (the first by spec and id): a sample keeps a slow judge's study short.
    max_trajectories: int | None = Field(default=None, ge=1)
    max_cases_per_kind: int | None = Field(default=None, ge=1,
        description="Per trajectory and arm, in criterion order.")
    report: str = Field("sensitivity", description="The folder under the output directory.")


class JudgeSensitivityResult(BaseModel):
    """What the judge_sensitivity stage did."""

    trajectories: int
    cases: int
    rows: list[SensitivityRow]
    unscored: list[UnscoredCase]  # the judge gave no verdict: listed apart, never in the rows
    refused: str | None = None  # set when nothing could be scored: there is no table, and this says why
    table: str  # markdown, like the paper's, with the unscored cases listed below it
    report_dir: str
    llm: CallTotals = Field(default_factory=CallTotals)  # chat-model calls of this run (cached ones counted)


def run(ctx: StageContext, params: JudgeSensitivityParams) -> JudgeSensitivityResult:
    """Judge perturbed copies of admitted trajectories' deliverables and report how often the judge
    catches each perturbation."""
    rows = ctx.graph.read_dicts(GET_TRAJECTORIES_TO_JUDGE, statuses=params.statuses, spec_ids=params.spec_ids,
                                trajectory_ids=params.trajectory_ids)
    llm = None
    if params.use_llm:
        from graphforge.llm import chat_model

        llm = chat_model(ctx.settings, temperature=0.0)  # greedy: the same deliverable gets the same verdict
    if params.max_trajectories is not None:
        rows = rows[:params.max_trajectories]
    out = ctx.out_dir / params.report
    views: dict[str, JudgeView] = {}
    cases: list[SensitivityCase] = []
    unscored: list[UnscoredCase] = []
    ledger: list[LLMCallRecord] = []
    trajectories = store.get_deliverables(ctx.graph, [r["trajectory_id"] for r in rows])
    for t in trajectories:
        if t.spec_id is None:
            raise JudgeError(f"trajectory {t.trajectory_id} attempts no task spec, so it cannot be judged")
        view = views.get(t.spec_id) or views.setdefault(t.spec_id, load_view(ctx.graph, t.spec_id))
        files = {d.name: Path(d.path) for d in t.deliverables}
        for arm in params.arms:
            scored, failed = cases_for(
                view,
                files,
                arm,
                out / t.trajectory_id / arm.value,
                trajectory_id=t.trajectory_id,
                llm=llm,
                kinds=list(params.kinds),
                ledger=ledger,
                max_per_kind=params.max_cases_per_kind,
            )
            cases += scored
            unscored += failed
    summary = summarise(cases)
    table = markdown_table(summary, unscored)
    out.mkdir(parents=True, exist_ok=True)
    (out / "table.md").write_text(table + "\n", encoding="utf-8")
    (out / "cases.json").write_text(json.dumps([c.model_dump(mode="json") for c in cases], indent=1),
                                    encoding="utf-8")
    (out / "unscored.json").write_text(json.dumps([u.model_dump(mode="json") for u in unscored], indent=1),
                                       encoding="utf-8")
    refused = None
    if unscored and not cases:
        refused = (f"judge sensitivity: no case could be scored; the judge gave no verdict for "
                   f"{len(unscored)} case(s), first {unscored[0].trajectory_id} ({unscored[0].arm.value}): "
                   f"{unscored[0].reason} [list in {out / 'unscored.json'}]")
    return JudgeSensitivityResult(trajectories=len(trajectories), cases=len(cases), rows=summary,
                                  unscored=unscored, refused=refused, table=table, report_dir=str(out),
                                  llm=CallTotals.of(ledger))

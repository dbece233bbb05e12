"""Stage 8b: admit judged trajectories at Q > threshold, drop degenerate tool use; each decision says why."""

from __future__ import annotations

import json
from collections import Counter
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from graphforge.context import StageContext
from graphforge.graphdb import cypher
from graphforge.models.judge import CriterionRating, JudgeArm
from graphforge.models.trajectory import Trajectory, TrajectoryStatus
from graphforge.review.verdicts import SpecReview, review_states, reviewed_q
from graphforge.settings import GraphforgeSettings
from graphforge.stores import trajectories as store

GET_ADMISSION_CANDIDATES = cypher.load("judge/get_admission_candidates")


class CleaningRules(BaseModel):
    """Cleaning thresholds; defaults and environment names live in the settings (GRAPHFORGE_ADMIT_*)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_tool_calls: int = Field(ge=1)
    max_repeated_calls: int = Field(ge=1)  # one identical non-polling call (name + args) at most this often
    polling_tools: list[str]
    max_tool_failure_rate: float = Field(ge=0, le=1)
    min_calls_for_failure_rate: int = Field(ge=1)
    max_truncations: int = Field(ge=0)
    failure_markers: list[str]
    truncation_markers: list[str]

    @classmethod
    def from_settings(cls, s: GraphforgeSettings) -> CleaningRules:
        return cls(max_tool_calls=s.admit_max_tool_calls, max_repeated_calls=s.admit_max_repeated_calls,
                   polling_tools=s.admit_polling_tools, max_tool_failure_rate=s.admit_max_tool_failure_rate,
                   min_calls_for_failure_rate=s.admit_min_calls_for_failure_rate,
                   max_truncations=s.admit_max_truncations, failure_markers=s.admit_failure_markers,
                   truncation_markers=s.admit_truncation_markers)


class CleaningRule(StrEnum):
    """Why tool use is degenerate."""

    NO_TOOL_CALLS = "no_tool_calls"  # the task needs the workspace files and not one tool was called
    EXCESSIVE_TOOL_CALLS = "excessive_tool_calls"
    REPEATED_CALL = "repeated_call"
    TOOL_FAILURE_RATE = "tool_failure_rate"
    REPEATED_TRUNCATION = "repeated_truncation"


class Degenerate(BaseModel):
    """One broken cleaning rule: what was seen against the limit, and on what."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rule: CleaningRule
    observed: float
    limit: float
    detail: str = ""  # the repeated call, "failures/results", ...

    def text(self) -> str:
        if self.rule is CleaningRule.NO_TOOL_CALLS:
            return f"no tool calls: the task needs the workspace files ({self.detail})"
        if self.rule is CleaningRule.EXCESSIVE_TOOL_CALLS:
            return f"excessive tool calls: {self.observed:g} > {self.limit:g}"
        if self.rule is CleaningRule.REPEATED_CALL:
            return f"repeated non-polling call: {self.detail} x{self.observed:g} > {self.limit:g}"
        if self.rule is CleaningRule.TOOL_FAILURE_RATE:
            return f"tool-failure rate {self.detail} > {self.limit:.0%}"
        return f"repeated truncation: {self.observed:g} > {self.limit:g}"


class AdmissionReason(StrEnum):
    """The kind of an admission decision."""

    ADMITTED = "admitted"  # valid deliverables, Q above the threshold, clean tool use
    LOSS = "loss"  # a deliverable was missing or invalid (Q = 0, the judge was not asked)
    BELOW_THRESHOLD = "below_threshold"
    DEGENERATE = "degenerate"  # Q passed, discarded by cleaning
    HUMAN_REVIEW = "human_review"  # its spec was rejected in human review (graphforge review import)


class AdmitTrajectoriesParams(BaseModel):
    """Options of the admit_trajectories stage."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    arm: JudgeArm = JudgeArm.ANCHORED
    spec_ids: list[str] | None = None
    q_threshold: float | None = Field(None, description="None: settings.admit_q_threshold.")
    rules: CleaningRules | None = Field(None, description="None: from the settings.")


class Decision(BaseModel):
    trajectory_id: str
    status: TrajectoryStatus
    q: float | None
    code: AdmissionReason
    degenerate: list[Degenerate] = Field(default_factory=list)
    reason: str  # the same decision in words (stored on the trajectory)


class Funnel(BaseModel):
    materialised: int
    judged: int
    admitted: int  # passed the deliverable gate and Q > threshold
    cleaned: int  # admitted and not degenerate: the final admitted set


class AdmitTrajectoriesResult(BaseModel):
    """What the admit_trajectories stage did."""

    q_threshold: float
    funnel: Funnel
    decisions: list[Decision]
    discard_reasons: dict[CleaningRule, int]  # discarded trajectories per broken cleaning rule


def degenerate_use(t: Trajectory, rules: CleaningRules | None = None, *, workspace_files: int = 1
                   ) -> list[Degenerate]:
    """The cleaning rules a trajectory's tool use breaks (none: fine); rules default to the settings.

    Args:
        workspace_files: how many files the task's workspace holds; with any, a trajectory that never called a
            tool cannot have read them, so its deliverables are guesses however well they score.
    """
    rules = rules or CleaningRules.from_settings(GraphforgeSettings())
    calls = [
        (c.function.name, c.function.arguments)
        for m in t.messages
        if m.role == "assistant" and m.tool_calls
        for c in m.tool_calls
    ]
    results = [m.content or "" for m in t.messages if m.role == "tool"]
    out: list[Degenerate] = []
    if not calls and workspace_files > 0:
        files = f"{workspace_files} workspace file{'s' if workspace_files != 1 else ''}"
        out.append(Degenerate(rule=CleaningRule.NO_TOOL_CALLS, observed=0, limit=1, detail=files))
    if len(calls) > rules.max_tool_calls:
        out.append(Degenerate(rule=CleaningRule.EXCESSIVE_TOOL_CALLS, observed=len(calls),
                              limit=rules.max_tool_calls))
    polling = {p.lower() for p in rules.polling_tools}
    repeated = [(k, n) for k, n in Counter(c for c in calls if c[0].lower() not in polling).items()
                if n > rules.max_repeated_calls]
    if repeated:
        (name, args), n = max(repeated, key=lambda x: x[1])
        out.append(Degenerate(rule=CleaningRule.REPEATED_CALL, observed=n, limit=rules.max_repeated_calls,
                              detail=f"{name}({_short(args)})"))
    failures = sum(1 for r in results if _is_failure(r, rules.failure_markers))
    rate = failures / len(results) if results else 0.0
    if len(results) >= rules.min_calls_for_failure_rate and rate > rules.max_tool_failure_rate:
        out.append(Degenerate(rule=CleaningRule.TOOL_FAILURE_RATE, observed=round(rate, 4),
                              limit=rules.max_tool_failure_rate, detail=f"{failures}/{len(results)}"))
    truncated = sum(1 for r in results if any(m in r for m in rules.truncation_markers))
    if truncated > rules.max_truncations:
        out.append(Degenerate(rule=CleaningRule.REPEATED_TRUNCATION, observed=truncated,
                              limit=rules.max_truncations))
    return out


def degenerate_reasons(t: Trajectory, rules: CleaningRules | None = None, *, workspace_files: int = 1
                       ) -> list[str]:
    """The broken cleaning rules in words."""
    return [d.text() for d in degenerate_use(t, rules, workspace_files=workspace_files)]


def _is_failure(result: str, markers: list[str]) -> bool:
    head = result.lstrip()[:200]
    if head.startswith("{"):
        try:
            parsed = json.loads(result)
        except (json.JSONDecodeError, TypeError):
            pass
        else:
            # {"error": null, ...} is how many tools say "no error": only a non-empty error is a failure.
            if isinstance(parsed, dict):
                return bool(parsed.get("error")) or parsed.get("is_error") is True
    return any(head.startswith(m) for m in markers if not m.startswith('"'))


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def decide(q: float | None, deliverables_ok: bool | None, judgment_reason: str | None,
           degenerate: list[Degenerate], threshold: float
           ) -> tuple[TrajectoryStatus, AdmissionReason, str] | None:
    """The admission decision for one trajectory: status, reason code, reason in words (None: not judged)."""
    if q is None:
        return None
    if not deliverables_ok:
        return (TrajectoryStatus.REJECTED, AdmissionReason.LOSS,
                f"loss: {judgment_reason or 'deliverables missing or invalid'}")
    words = "; ".join(d.text() for d in degenerate)
    if q <= threshold:
        extra = f"; also degenerate: {words}" if degenerate else ""
        return (TrajectoryStatus.REJECTED, AdmissionReason.BELOW_THRESHOLD,
                f"Q = {q:.3f} <= {threshold:.2f}{extra}")
    if degenerate:
        return (TrajectoryStatus.DISCARDED, AdmissionReason.DEGENERATE,
                f"Q = {q:.3f} passed, discarded by cleaning: {words}")
    return (TrajectoryStatus.ADMITTED, AdmissionReason.ADMITTED,
            f"Q = {q:.3f} > {threshold:.2f}; deliverables valid; tool use clean")


def run(ctx: StageContext, params: AdmitTrajectoriesParams) -> AdmitTrajectoriesResult:
    """Admit or reject each judged trajectory of the arm (Q above the threshold, no degenerate tool use);
    every decision is stored with its reason."""
    rules = params.rules or CleaningRules.from_settings(ctx.settings)
    threshold = params.q_threshold if params.q_threshold is not None else ctx.settings.admit_q_threshold
    statuses = [v.value for v in TrajectoryStatus if v is not TrajectoryStatus.FAILED]
    rows = ctx.graph.read_dicts(GET_ADMISSION_CANDIDATES, arm=params.arm.value, spec_ids=params.spec_ids,
                                statuses=statuses)
    # Transcripts a batch at a time: only the cleaning verdict of each is kept, not its messages.
    by_id = {r["trajectory_id"]: r for r in rows}
    degenerate_of = {t.trajectory_id: degenerate_use(t, rules, workspace_files=int(
        by_id[t.trajectory_id]["workspace_files"] or 0)) for t in store.iter_trajectories(
        ctx.graph, [r["trajectory_id"] for r in rows if r["q"] is not None])}
    reviews = review_states(ctx.graph, sorted({str(r["spec_id"]) for r in rows}))
    decisions: list[Decision] = []
    for row in rows:
        degenerate = degenerate_of.get(row["trajectory_id"], [])
        review = reviews.get(str(row["spec_id"]))
        q, note = reviewed_row_q(row, review)
        decided = decide(q, row["deliverables_ok"], row["judgment_reason"], degenerate, threshold)
        if decided is None:
            continue
        status, code, reason = decided
        if review is not None and review.rejected:
            status, code, reason = TrajectoryStatus.REJECTED, AdmissionReason.HUMAN_REVIEW, review.reason()
        elif note:
            reason += f" ({note})"
        decisions.append(Decision(trajectory_id=row["trajectory_id"], status=status, q=q, code=code,
                                  degenerate=degenerate if code is AdmissionReason.DEGENERATE else [],
                                  reason=reason))
    store.set_status(ctx.graph, [(d.trajectory_id, d.status, d.reason) for d in decisions])
    discards = Counter(x.rule for d in decisions for x in d.degenerate)
    passed = sum(d.code in (AdmissionReason.ADMITTED, AdmissionReason.DEGENERATE) for d in decisions)
    funnel = Funnel(materialised=len(rows), judged=len(decisions), admitted=passed,
                    cleaned=sum(d.code is AdmissionReason.ADMITTED for d in decisions))
    return AdmitTrajectoriesResult(q_threshold=threshold, funnel=funnel, decisions=decisions,
                                   discard_reasons=dict(discards))


def reviewed_row_q(row: dict[str, object], review: SpecReview | None) -> tuple[float | None, str]:
    """A candidate's Q over the criteria reviewers kept, and a note when that differs from the judge's Q
    (pure). A loss keeps Q = 0; a judgment without stored ratings keeps its Q."""
    q = row["q"]
    rejected = review.rejected_criteria if review is not None else set()
    if q is None or not rejected or not row["deliverables_ok"] or not row.get("ratings_json"):
        return (None if q is None else float(q)), ""  # type: ignore[arg-type]
    ratings = [CriterionRating.model_validate(r) for r in json.loads(str(row["ratings_json"]))]
    dropped = sum(r.criterion_id in rejected for r in ratings)
    if not dropped:
        return float(q), ""  # type: ignore[arg-type]
    kept = reviewed_q(ratings, rejected)
    return kept, (f"Q over the criteria reviewers kept: {dropped} rejected in human review, judge's Q was "
                  f"{float(q):.3f}")  # type: ignore[arg-type]

"""Stage 8b: admit judged trajectories at Q > threshold, drop degenerate tool use; each decision says why."""

from __future__ import annotations

import json
from collections import Counter

from pydantic import BaseModel, ConfigDict, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from graphforge import cypher, store
from graphforge.context import StageContext
from graphforge.models.judge import JudgeArm
from graphforge.models.trajectory import Trajectory, TrajectoryStatus

GET_ADMISSION_CANDIDATES = cypher.load("judge/get_admission_candidates")


class AdmissionSettings(BaseSettings):
    """Admission and cleaning thresholds (env prefix GRAPHFORGE_ADMIT_)."""

    model_config = SettingsConfigDict(env_prefix="GRAPHFORGE_ADMIT_", env_file=".env", extra="ignore")

    q_threshold: float = 0.90  # admit when Q > this (paper: SFT 0.90)
    max_tool_calls: int = Field(150, ge=1)  # excessive tool use
    max_repeated_calls: int = Field(
        3, ge=1
    )  # one identical non-polling call (name + arguments) at most this often
    polling_tools: list[str] = Field(default_factory=lambda: ["wait", "sleep", "poll", "check_status",
                                                              "get_status", "job_status"])
    max_tool_failure_rate: float = Field(0.3, ge=0, le=1)
    min_calls_for_failure_rate: int = Field(5, ge=1)  # the rate means little on fewer calls
    max_truncations: int = Field(3, ge=0)  # tool results cut short more often than this
    failure_markers: list[str] = Field(default_factory=lambda: ["ERROR", '"error"'])
    truncation_markers: list[str] = Field(default_factory=lambda: ["[truncated"])


class AdmitTrajectoriesParams(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    arm: JudgeArm = JudgeArm.ANCHORED
    spec_ids: list[str] | None = None
    q_threshold: float | None = None  # None: AdmissionSettings().q_threshold


class Decision(BaseModel):
    trajectory_id: str
    status: TrajectoryStatus
    q: float | None
    reason: str


class Funnel(BaseModel):
    materialised: int
    judged: int
    admitted: int  # passed the deliverable gate and Q > threshold
    cleaned: int  # admitted and not degenerate: the final admitted set


class AdmitTrajectoriesResult(BaseModel):
    q_threshold: float
    funnel: Funnel
    decisions: list[Decision]
    discard_reasons: dict[str, int]


def degenerate_reasons(t: Trajectory, s: AdmissionSettings) -> list[str]:
    """Why a trajectory's tool use is degenerate (empty when it is fine)."""
    calls = [
        (c.function.name, c.function.arguments)
        for m in t.messages
        if m.role == "assistant" and m.tool_calls
        for c in m.tool_calls
    ]
    results = [m.content or "" for m in t.messages if m.role == "tool"]
    reasons: list[str] = []
    if len(calls) > s.max_tool_calls:
        reasons.append(f"excessive tool calls: {len(calls)} > {s.max_tool_calls}")
    polling = {p.lower() for p in s.polling_tools}
    repeated = [(k, n) for k, n in Counter(c for c in calls if c[0].lower() not in polling).items()
                if n > s.max_repeated_calls]
    if repeated:
        (name, args), n = max(repeated, key=lambda x: x[1])
        reasons.append(f"repeated non-polling call: {name}({_short(args)}) x{n} > {s.max_repeated_calls}")
    failures = sum(1 for r in results if _is_failure(r, s.failure_markers))
    if len(results) >= s.min_calls_for_failure_rate and failures / len(results) > s.max_tool_failure_rate:
        reasons.append(f"tool-failure rate {failures}/{len(results)} > {s.max_tool_failure_rate:.0%}")
    truncated = sum(1 for r in results if any(m in r for m in s.truncation_markers))
    if truncated > s.max_truncations:
        reasons.append(f"repeated truncation: {truncated} > {s.max_truncations}")
    return reasons


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


def decide(q: float | None, deliverables_ok: bool | None, judgment_reason: str | None, degenerate: list[str],
           threshold: float) -> tuple[TrajectoryStatus | None, str]:
    """The admission decision for one trajectory (None: not judged yet, nothing to decide)."""
    if q is None:
        return None, "not judged"
    if not deliverables_ok:
        return TrajectoryStatus.REJECTED, f"loss: {judgment_reason or 'deliverables missing or invalid'}"
    if q <= threshold:
        extra = f"; also degenerate: {'; '.join(degenerate)}" if degenerate else ""
        return TrajectoryStatus.REJECTED, f"Q = {q:.3f} <= {threshold:.2f}{extra}"
    if degenerate:
        return (
            TrajectoryStatus.DISCARDED,
            f"Q = {q:.3f} passed, discarded by cleaning: {'; '.join(degenerate)}",
        )
    return TrajectoryStatus.ADMITTED, f"Q = {q:.3f} > {threshold:.2f}; deliverables valid; tool use clean"


def run(ctx: StageContext, params: AdmitTrajectoriesParams,
        settings: AdmissionSettings | None = None) -> AdmitTrajectoriesResult:
    s = settings or AdmissionSettings()
    threshold = params.q_threshold if params.q_threshold is not None else s.q_threshold
    statuses = [v.value for v in TrajectoryStatus if v is not TrajectoryStatus.FAILED]
    rows = ctx.graph.read_dicts(GET_ADMISSION_CANDIDATES, arm=params.arm.value, spec_ids=params.spec_ids,
                                statuses=statuses)
    trajectories = {t.trajectory_id: t for t in store.get_trajectories(
        ctx.graph, [r["trajectory_id"] for r in rows if r["q"] is not None])}
    decisions: list[Decision] = []
    passed = 0
    for row in rows:
        t = trajectories.get(row["trajectory_id"])
        degenerate = degenerate_reasons(t, s) if t is not None else []
        status, reason = decide(
            row["q"], row["deliverables_ok"], row["judgment_reason"], degenerate, threshold
        )
        if status is None:
            continue
        passed += status in (TrajectoryStatus.ADMITTED, TrajectoryStatus.DISCARDED)
        decisions.append(
            Decision(trajectory_id=row["trajectory_id"], status=status, q=row["q"], reason=reason)
        )
    store.set_status(ctx.graph, [(d.trajectory_id, d.status, d.reason) for d in decisions])
    discards = Counter(r.split(":")[0].strip() for d in decisions if d.status is TrajectoryStatus.DISCARDED
                       for r in d.reason.split("cleaning: ", 1)[-1].split("; "))
    funnel = Funnel(materialised=len(rows), judged=len(decisions), admitted=passed,
                    cleaned=sum(d.status is TrajectoryStatus.ADMITTED for d in decisions))
    return AdmitTrajectoriesResult(q_threshold=threshold, funnel=funnel, decisions=decisions,
                                   discard_reasons=dict(discards))

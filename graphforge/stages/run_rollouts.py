"""Roll out the built-in agent loop on compiled specs: K samples each, all concurrent, resumable, priced.

With a shard (``graphforge.sharding``) a process rolls out only the specs whose id hashes to it, all K samples
of each: n processes on n machines share one graph, and a re-run resumes each spec where it stopped."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from graphforge.agent.loop import (
    AgentConfig,
    RolloutJob,
    RolloutOutcome,
    arun_many,
    run_dir_name,
    trajectory_id,
)
from graphforge.agent.sandbox import SandboxLimits
from graphforge.context import StageContext
from graphforge.errors import ConfigError, StageError
from graphforge.graphdb import cypher
from graphforge.llm import chat_model
from graphforge.models.base import Row
from graphforge.models.spec import AgentView
from graphforge.models.trajectory import TrajectoryStatus
from graphforge.sharding import Shard
from graphforge.stores.trajectories import save_trajectories

GET_CURRENT_SPECS = cypher.load("oracle/get_current_specs")
GET_SPEC_WORKSPACE = cypher.load("rollouts/get_spec_workspace")
GET_TRAJECTORY_STATUSES = cypher.load("rollouts/get_trajectory_statuses")
MERGE_ROLLOUT_RUNS = cypher.load("rollouts/merge_rollout_runs")

# Anything past materialised (judged, admitted, rejected, discarded) is also finished work.
_DONE = frozenset(s.value for s in TrajectoryStatus) - {TrajectoryStatus.FAILED.value}


class RunRolloutsParams(BaseModel):
    """Options of the run_rollouts stage."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    # The specs to roll out (spec_id and spec_ids together, one concurrent batch); none named: every current
    # spec (no newer version of its base).
    spec_id: str | None = None
    spec_ids: list[str] = Field(default_factory=list)
    n: int = Field(1, ge=1, le=256, description="Samples (K) per spec.")
    # Rollouts at once, over all specs (None: GRAPHFORGE_LLM_CONCURRENCY); HTTP calls are capped by that too.
    concurrency: int | None = Field(None, ge=1, le=256)
    max_steps: int = Field(30, ge=1)
    temperature: float | None = None
    max_tokens: int | None = None
    tool_timeout_s: float = Field(60.0, gt=0)
    memory_mb: int = Field(1024, ge=64)
    workspace_dir: Path | None = Field(None, description="None: the workspace root recorded in the graph.")
    force: bool = Field(False, description="Re-run samples that are already materialised.")
    shard: Shard | None = Field(None,
        description="Only the specs whose id hashes into this shard, each with all its K samples.")

    @property
    def all_spec_ids(self) -> list[str]:
        return list(dict.fromkeys([*([self.spec_id] if self.spec_id else []), *self.spec_ids]))


class RolloutSummary(BaseModel):
    trajectory_id: str
    status: str
    stop_reason: str
    steps: int
    tool_calls: int
    tool_failures: int
    deliverables: list[str]
    tokens: int
    cost_usd: float
    run_dir: str


class RunRolloutsResult(BaseModel):
    """What the run_rollouts stage did."""

    spec_id: str | None  # the first spec (all of them in spec_ids); None when there was none to roll out
    spec_ids: list[str]
    shard: str | None = None  # "i/n" when one shard ran
    model: str
    concurrency: int
    requested: int
    skipped: list[str]  # already materialised (resumed runs)
    rollouts: list[RolloutSummary]
    materialised: int
    failed: int
    llm_calls: int
    cached_calls: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float


class RolloutRunRow(Row):
    trajectory_id: str
    stop_reason: str
    tool_calls: int
    tool_failures: int
    llm_calls: int
    llm_cached_calls: int
    llm_prompt_hashes: list[str]
    run_dir: str


def pending_samples(
    spec_id: str, n: int, statuses: dict[str, str], force: bool
) -> tuple[list[int], list[str]]:
    """(sample indexes to run, trajectory ids skipped because they are done)."""
    todo, skipped = [], []
    for k in range(n):
        tid = trajectory_id(spec_id, k)
        if not force and statuses.get(tid) in _DONE:
            skipped.append(tid)
        else:
            todo.append(k)
    return todo, skipped


def run(ctx: StageContext, params: RunRolloutsParams) -> RunRolloutsResult:
    """Roll out the agent loop K times on each selected spec, concurrently and resumably, and store the
    trajectories."""
    llm = chat_model(ctx.settings)
    if llm is None:
        raise ConfigError(
            "no chat model configured: set GRAPHFORGE_LLM_BASE_URL and GRAPHFORGE_LLM_MODEL "
            "(an OpenAI-compatible endpoint) or GRAPHFORGE_LLM_LOCAL=1, or roll out the graph oracle instead"
        )
    spec_ids = params.all_spec_ids or [
        str(r["spec_id"]) for r in ctx.graph.read_dicts(GET_CURRENT_SPECS, spec_ids=None)]
    if params.shard is not None:
        spec_ids = params.shard.select(spec_ids)
    runs_root = ctx.settings.home / "runs"
    jobs: list[RolloutJob] = []
    skipped: list[str] = []
    for spec_id in spec_ids:
        view, workspace_dir = _view(ctx, spec_id, params.workspace_dir)
        ids = [trajectory_id(spec_id, k) for k in range(params.n)]
        statuses = {
            str(r["trajectory_id"]): str(r["status"])
            for r in ctx.graph.read_dicts(GET_TRAJECTORY_STATUSES, trajectory_ids=ids)
        }
        todo, done = pending_samples(spec_id, params.n, statuses, params.force)
        skipped += done
        jobs += [RolloutJob(view, workspace_dir, runs_root / run_dir_name(trajectory_id(spec_id, k)), k)
                 for k in todo]
    config = AgentConfig(
        max_steps=params.max_steps,
        temperature=params.temperature,
        max_tokens=params.max_tokens,
        limits=SandboxLimits(wall_s=params.tool_timeout_s, memory_mb=params.memory_mb),
    )
    concurrency = params.concurrency or ctx.settings.llm_concurrency

    async def store(job: RolloutJob, outcome: RolloutOutcome) -> None:
        # Saved as each finishes: an interrupted batch keeps its finished samples (resumable).
        await asyncio.to_thread(_save, ctx, outcome, job.run_dir)

    outcomes = asyncio.run(arun_many(llm, jobs, concurrency=concurrency, config=config, on_done=store))
    summaries = [_summary(o, runs_root) for o in outcomes]
    records = [r for o in outcomes for r in o.records]
    return RunRolloutsResult(
        spec_id=spec_ids[0] if spec_ids else None,
        spec_ids=spec_ids,
        shard=str(params.shard) if params.shard else None,
        model=llm.model,
        concurrency=concurrency,
        requested=params.n * len(spec_ids),
        skipped=skipped,
        rollouts=summaries,
        materialised=sum(s.status == TrajectoryStatus.MATERIALISED.value for s in summaries),
        failed=sum(s.status == TrajectoryStatus.FAILED.value for s in summaries),
        llm_calls=len(records),
        cached_calls=sum(r.cached for r in records),
        prompt_tokens=sum(r.input_tokens for r in records),
        completion_tokens=sum(r.output_tokens for r in records),
        cost_usd=round(sum(r.cost_usd for r in records), 8),
    )


def _view(ctx: StageContext, spec_id: str, workspace_dir: Path | None) -> tuple[AgentView, Path]:
    """What the agent sees of a spec, and the workspace folder its files come from."""
    from graphforge.stores.specs import agent_view_from_graph

    view = agent_view_from_graph(ctx.graph, spec_id)
    if workspace_dir is None:
        found = ctx.graph.read_dicts(GET_SPEC_WORKSPACE, spec_id=spec_id)
        if not found or not found[0].get("root"):
            raise StageError(
                "rollout", f"spec {spec_id!r} has no workspace root in the graph; pass workspace_dir"
            )
        workspace_dir = Path(str(found[0]["root"]))
    if not workspace_dir.is_dir():
        raise StageError("rollout", f"workspace folder {workspace_dir} does not exist on this machine")
    if not view.files:
        # The workspace was not loaded into this graph: the agent gets every file of the folder.
        files = sorted(
            p.relative_to(workspace_dir).as_posix() for p in workspace_dir.rglob("*") if p.is_file()
        )
        view = view.model_copy(update={"files": files})
    return view, workspace_dir


def _save(ctx: StageContext, outcome: RolloutOutcome, run_dir: Path) -> None:
    save_trajectories(ctx.graph, [outcome.trajectory])
    ctx.graph.write(
        MERGE_ROLLOUT_RUNS,
        [
            RolloutRunRow(
                trajectory_id=outcome.trajectory.trajectory_id,
                stop_reason=outcome.stop_reason[:500],
                tool_calls=outcome.tool_calls,
                tool_failures=outcome.tool_failures,
                llm_calls=len(outcome.records),
                llm_cached_calls=sum(r.cached for r in outcome.records),
                llm_prompt_hashes=[r.prompt_hash for r in outcome.records],
                run_dir=str(run_dir),
            )
        ],
    )


def _summary(o: RolloutOutcome, runs_root: Path) -> RolloutSummary:
    t = o.trajectory
    return RolloutSummary(
        trajectory_id=t.trajectory_id,
        status=t.status.value,
        stop_reason=o.stop_reason,
        steps=t.steps,
        tool_calls=o.tool_calls,
        tool_failures=o.tool_failures,
        deliverables=[d.name for d in t.deliverables],
        tokens=t.tokens,
        cost_usd=t.cost_usd,
        run_dir=str(runs_root / run_dir_name(t.trajectory_id)),
    )

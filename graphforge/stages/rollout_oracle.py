"""Stage 6 (oracle): the rule-based graph oracle attempts a compiled spec; optionally with injected errors."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from graphforge import cypher, store
from graphforge.context import StageContext
from graphforge.judge import Anchor, load_view
from graphforge.oracle import ORACLE_MODEL, InjectKind, run_oracle
from graphforge.sharding import Shard

GET_CONFUSER_FACTS = cypher.load("oracle/get_confuser_facts")
GET_CURRENT_SPECS = cypher.load("oracle/get_current_specs")


class RolloutOracleParams(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    spec_id: str
    inject: list[InjectKind] = Field(default_factory=list)
    seed: int = 0


class RolloutOracleResult(BaseModel):
    trajectory_id: str
    spec_id: str
    model: str
    deliverables: list[str]
    injected: list[str]
    steps: int
    out_dir: str


def run(ctx: StageContext, params: RolloutOracleParams) -> RolloutOracleResult:
    view = load_view(ctx.graph, params.spec_id)
    confusers = ctx.graph.read(GET_CONFUSER_FACTS, Anchor, spec_id=params.spec_id)
    out = ctx.out_dir / "rollouts"
    result = run_oracle(
        view, view.paths, out, inject=list(params.inject), confusers=confusers, seed=params.seed
    )
    store.save_trajectories(ctx.graph, [result.trajectory])
    t = result.trajectory
    return RolloutOracleResult(trajectory_id=t.trajectory_id, spec_id=params.spec_id, model=ORACLE_MODEL,
                               deliverables=[d.name for d in t.deliverables], injected=result.injected,
                               steps=t.steps, out_dir=str(out / t.trajectory_id))


class RolloutOracleAllParams(BaseModel):
    """The oracle on many specs: every current spec (or those named), optionally one shard of them."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    spec_ids: list[str] | None = None  # None: every current spec
    inject: list[InjectKind] = Field(default_factory=list)
    seed: int = 0
    shard: Shard | None = None  # only the specs whose id hashes into this shard (see graphforge.sharding)


class RolloutOracleAllResult(BaseModel):
    shard: str | None
    rollouts: list[RolloutOracleResult]


def run_all(ctx: StageContext, params: RolloutOracleAllParams) -> RolloutOracleAllResult:
    """One oracle rollout per spec; the trajectory id follows from (spec, injections, seed), so a re-run
    or a second shard that overlaps rewrites the same trajectory instead of adding one."""
    ids = [str(r["spec_id"]) for r in ctx.graph.read_dicts(GET_CURRENT_SPECS, spec_ids=params.spec_ids)]
    if params.shard is not None:
        ids = params.shard.select(ids)
    one = [run(ctx, RolloutOracleParams(spec_id=s, inject=params.inject, seed=params.seed)) for s in ids]
    return RolloutOracleAllResult(shard=str(params.shard) if params.shard else None, rollouts=one)

"""Stage 6 (oracle): the rule-based graph oracle attempts a compiled spec; optionally with injected errors."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from graphforge import cypher, store
from graphforge.context import StageContext
from graphforge.judge import Anchor, load_view
from graphforge.oracle import ORACLE_MODEL, InjectKind, run_oracle

GET_CONFUSER_FACTS = cypher.load("oracle/get_confuser_facts")


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

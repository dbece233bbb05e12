"""Stage 6 (oracle): the rule-based graph oracle attempts compiled specs; optionally with injected errors."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from graphforge.context import StageContext
from graphforge.errors import StageError
from graphforge.graphdb import cypher
from graphforge.judge import Anchor, load_view
from graphforge.oracle import ORACLE_MODEL, InjectKind, run_oracle
from graphforge.sharding import Shard
from graphforge.stores import trajectories as store
from graphforge.stores.specs import spec_workspace

GET_CONFUSER_FACTS = cypher.load("oracle/get_confuser_facts")
GET_CURRENT_SPECS = cypher.load("oracle/get_current_specs")


class RolloutOracleParams(BaseModel):
    """The specs the oracle solves: one (``spec_id``), several (``spec_ids``), or, when none is named, every
    current spec (no newer version of its base); optionally only one shard of them."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    spec_id: str | None = None
    spec_ids: list[str] = Field(default_factory=list)
    inject: list[InjectKind] = Field(default_factory=list)
    seed: int = 0
    read_chars: int = Field(20_000, gt=0,
        description="Read_file page size (the agent loop's max_read_chars).")
    slips: float = Field(0.0, ge=0, le=1,
        description="Chance that a demonstration asks once for a misremembered file name, gets the tool's "
                    "not-found answer with the closest names, and reads the right file from it.")
    shard: Shard | None = Field(None,
        description="Only the specs whose id hashes into this shard (see graphforge.sharding).")

    @property
    def named(self) -> list[str]:
        return list(dict.fromkeys([*([self.spec_id] if self.spec_id else []), *self.spec_ids]))


class OracleRollout(BaseModel):
    trajectory_id: str
    spec_id: str
    model: str
    deliverables: list[str]
    injected: list[str]
    steps: int
    out_dir: str


class RolloutOracleResult(BaseModel):
    """What the rollout_oracle stage did."""

    model: str = ORACLE_MODEL
    shard: str | None = None
    rollouts: list[OracleRollout]

    @property
    def trajectory_id(self) -> str:
        """The trajectory of a run that solved exactly one spec."""
        if len(self.rollouts) != 1:
            raise StageError("rollout_oracle", f"{len(self.rollouts)} rollouts, not one: read .rollouts")
        return self.rollouts[0].trajectory_id


def run(ctx: StageContext, params: RolloutOracleParams) -> RolloutOracleResult:
    """One oracle rollout per spec; the trajectory id follows from (spec, injections, seed, slips), so a
    re-run or a second shard that overlaps rewrites the same trajectory instead of adding one."""
    ids = params.named or [str(r["spec_id"]) for r in ctx.graph.read_dicts(GET_CURRENT_SPECS, spec_ids=None)]
    if params.shard is not None:
        ids = params.shard.select(ids)
    out = ctx.out_dir / "rollouts"
    rollouts = []
    for spec_id in ids:
        view = load_view(ctx.graph, spec_id)
        confusers = ctx.graph.read(GET_CONFUSER_FACTS, Anchor, spec_id=spec_id)
        agent, workspace_dir = spec_workspace(ctx.graph, spec_id)
        result = run_oracle(view, view.paths, out, inject=list(params.inject), confusers=confusers,
                            seed=params.seed, workspace_dir=workspace_dir, agent=agent,
                            read_chars=params.read_chars, slips=params.slips)
        store.save_trajectories(ctx.graph, [result.trajectory])
        t = result.trajectory
        rollouts.append(OracleRollout(trajectory_id=t.trajectory_id, spec_id=spec_id, model=ORACLE_MODEL,
                                      deliverables=[d.name for d in t.deliverables], injected=result.injected,
                                      steps=t.steps, out_dir=str(out / t.trajectory_id)))
    return RolloutOracleResult(shard=str(params.shard) if params.shard else None, rollouts=rollouts)

"""Select seeds greedily by marginal coverage gain, then rebalance over patterns, sectors and demands."""

from __future__ import annotations

from collections import defaultdict
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from graphforge.context import StageContext
from graphforge.errors import StageError
from graphforge.graphdb import cypher
from graphforge.models.seeds import SeedCandidate, SelectedValueCount, SelectionRow
from graphforge.seeds import selection as seeding

GET_SEED_CANDIDATES = cypher.load("seeds/get_seed_candidates")
COUNT_SELECTED_VALUES = cypher.load("seeds/count_selected_values")
DELETE_SEED_SELECTION = cypher.load("seeds/delete_seed_selection")
MERGE_SEED_SELECTION = cypher.load("seeds/merge_seed_selection")


class GreedyMethod(StrEnum):
    LAZY = "lazy"  # grouped two-level CELF: same picks as naive, far fewer gain evaluations
    NAIVE = "naive"  # reference: every remaining candidate evaluated every round
    NUMPY = "numpy"  # naive, vectorised; same picks


class SelectSeedsParams(BaseModel):
    """Options of the select_seeds stage."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    n: int = Field(ge=1)
    method: GreedyMethod = GreedyMethod.LAZY
    lazy: bool = Field(True, description='Older flag, kept for callers: False means method="naive".')
    rebalance: bool = True
    # The greedy ranks n * pool_factor candidates; rebalancing picks n of them.
    pool_factor: int = Field(3, ge=1)
    demand_cap: int = Field(1, ge=1, description="At most this many selected seeds per normalised demand.")
    extend: bool = Field(False,
        description="Keep the current selection and add n more (counts start from the graph).")

    @model_validator(mode="before")
    @classmethod
    def _lazy_flag_means_naive(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("lazy") is False:
            if data.get("method", GreedyMethod.NAIVE) != GreedyMethod.NAIVE:
                raise ValueError("lazy=False asks for the naive greedy; it conflicts with method="
                                 f"{data['method']!r}")
            data = {**data, "method": GreedyMethod.NAIVE}
        return data


class SelectSeedsResult(BaseModel):
    """What the select_seeds stage did."""

    candidates: int
    already_selected: int
    selected: int
    method: str
    gain_evaluations: int
    rebalanced: bool
    pattern_quota: int = 0
    relaxed_picks: int = 0
    skipped_repeated_demand: int = 0
    distinct_selected: dict[str, int]  # per dimension, counted in the graph after writing
    distinct_pool: dict[str, int]
    first_seed_ids: list[str]


def to_candidates(seeds: list[SeedCandidate]) -> list[seeding.Candidate]:
    return [seeding.Candidate(key=s.seed_id, tie=seeding.tie_key(s.task_id, s.seed_id),
                              values=(s.soc_code, s.dwa_id, s.pattern, s.input_family)) for s in seeds]


def graph_counts(rows: list[SelectedValueCount]) -> dict[str, dict[str, int]]:
    counts: dict[str, dict[str, int]] = defaultdict(dict)
    for row in rows:
        counts[row.dimension][row.value] = row.seeds
    return dict(counts)


def plan_selection(
    pool: list[SeedCandidate], params: SelectSeedsParams, initial: dict[str, dict[str, int]]
) -> tuple[list[tuple[int, int, float]], seeding.Selection, seeding.Rebalanced | None]:
    """(pool index, greedy rank, gain) per pick in final order, with greedy and rebalance details (pure)."""
    candidates = to_candidates(pool)
    depth = min(len(pool), params.n * params.pool_factor) if params.rebalance else params.n
    selection = seeding.greedy(candidates, depth, initial, method=params.method.value)
    rank_of = {idx: r for r, idx in enumerate(selection.order, start=1)}
    gain_of = dict(zip(selection.order, selection.gains, strict=True))
    if not params.rebalance:
        return [(i, rank_of[i], gain_of[i]) for i in selection.order], selection, None
    items = [seeding.RebalanceItem(index=i, pattern=pool[i].pattern, sector=pool[i].sector_code,
                                   demand=pool[i].demand_normalized) for i in selection.order]
    balanced = seeding.rebalance(items, params.n, params.demand_cap)
    return [(i, rank_of[i], gain_of[i]) for i in balanced.order], selection, balanced


def run(ctx: StageContext, params: SelectSeedsParams) -> SelectSeedsResult:
    """Rank candidates, store ``selection_rank`` on each chosen Seed, and report coverage from the graph."""
    seeds = ctx.graph.read(GET_SEED_CANDIDATES, SeedCandidate)
    if not seeds:
        raise StageError(
            "select_seeds", "no candidate seeds in the graph; run `graphforge seeds build` first"
        )
    if params.extend:
        initial = graph_counts(ctx.graph.read(COUNT_SELECTED_VALUES, SelectedValueCount))
        already = [s for s in seeds if s.selection_rank is not None]
        pool = [s for s in seeds if s.selection_rank is None]
    else:
        ctx.graph.execute(DELETE_SEED_SELECTION)
        initial, already, pool = {}, [], list(seeds)
    picks, selection, balanced = plan_selection(pool, params, initial)
    offset = max((s.selection_rank or 0 for s in already), default=0)
    rows = [SelectionRow(seed_id=pool[i].seed_id, selection_rank=offset + rank, greedy_rank=greedy_rank,
                         selection_gain=round(gain, 12), selection_run=ctx.run_id)
            for rank, (i, greedy_rank, gain) in enumerate(picks, start=1)]
    ctx.graph.write(MERGE_SEED_SELECTION, rows)
    selected = graph_counts(ctx.graph.read(COUNT_SELECTED_VALUES, SelectedValueCount))
    pool_values = {"occupation": {s.soc_code for s in seeds}, "task_type": {s.dwa_id for s in seeds},
                   "pattern": {s.pattern for s in seeds}, "input_family": {s.input_family for s in seeds}}
    return SelectSeedsResult(
        candidates=len(seeds), already_selected=len(already), selected=len(rows),
        method=selection.method, gain_evaluations=selection.evaluations,
        rebalanced=balanced is not None, pattern_quota=balanced.pattern_quota if balanced else 0,
        relaxed_picks=balanced.relaxed_picks if balanced else 0,
        skipped_repeated_demand=balanced.skipped_repeated_demand if balanced else 0,
        distinct_selected={d: len(selected.get(d, {})) for d in seeding.DIMENSIONS},
        distinct_pool={d: len(v) for d, v in pool_values.items()},
        first_seed_ids=[r.seed_id for r in rows[:10]])

"""Fit Bradley-Terry Elo on a comparisons file and store the fit in the graph: a RatingRun and a Rating
per player (Elo, CI, record), so ratings can be browsed next to the attempts and judgments behind them."""

from __future__ import annotations

import hashlib

from pydantic import BaseModel, ConfigDict

from graphforge.context import StageContext
from graphforge.eval import elo
from graphforge.graphdb import cypher
from graphforge.models.base import Row, stable_hash

MERGE_RATING_RUNS = cypher.load("eval/merge_rating_runs")
MERGE_RATINGS = cypher.load("eval/merge_ratings")


class StoreRatingsParams(BaseModel):
    """Options of the eval_ratings stage."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    elo: elo.EloParams


class RatingRunRow(Row):
    run_id: str
    source: str
    source_sha256: str
    anchor: str
    anchor_rating: float
    comparisons: int
    players: int
    tasks: int
    bootstrap: int
    seed: int
    confidence: float
    ridge: float
    elo_json: str | None


class RatingRow(Row):
    rating_id: str
    run_id: str
    player: str
    rank: int
    elo: float
    ci_low: float
    ci_high: float
    comparisons: int
    wins: int
    losses: int
    ties: int


class StoreRatingsResult(BaseModel):
    """What the eval_ratings stage did."""

    run_id: str
    ratings_written: int
    elo: elo.EloResult


def run_id_of(source_sha256: str, params: elo.EloParams) -> str:
    """The same comparisons fitted with the same settings are the same run (re-storing changes nothing)."""
    return stable_hash(
        source_sha256,
        params.anchor,
        params.anchor_rating,
        params.bootstrap,
        params.seed,
        params.confidence,
        params.ridge,
    )


def run(ctx: StageContext, params: StoreRatingsParams) -> StoreRatingsResult:
    """Fit Bradley-Terry Elo ratings (anchored, bootstrapped) on a comparisons file and store the run and
    its ratings."""
    result = elo.run(params.elo)
    sha = hashlib.sha256(params.elo.comparisons.read_bytes()).hexdigest()
    run_id = run_id_of(sha, params.elo)
    ctx.graph.write(
        MERGE_RATING_RUNS,
        [
            RatingRunRow(
                run_id=run_id,
                source=str(params.elo.comparisons),
                source_sha256=sha,
                anchor=result.anchor,
                anchor_rating=result.anchor_rating,
                comparisons=result.comparisons,
                players=result.models,
                tasks=result.tasks,
                bootstrap=result.bootstrap,
                seed=result.seed,
                confidence=result.confidence,
                ridge=result.ridge,
                elo_json=result.outputs.get("json"),
            )
        ],
    )
    written = ctx.graph.write(
        MERGE_RATINGS,
        [
            RatingRow(
                rating_id=f"{run_id}/{r.model}",
                run_id=run_id,
                player=r.model,
                rank=r.rank,
                elo=r.elo,
                ci_low=r.ci_low,
                ci_high=r.ci_high,
                comparisons=r.comparisons,
                wins=r.wins,
                losses=r.losses,
                ties=r.ties,
            )
            for r in result.ratings
        ],
    )
    return StoreRatingsResult(run_id=run_id, ratings_written=written, elo=result)

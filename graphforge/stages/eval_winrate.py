"""Win rates split by coverage computed from the graph: is the task's occupation (or sector, or one of its
occupation's DWAs) the subject of a selected seed with an admitted trajectory?"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import polars as pl
from pydantic import BaseModel, ConfigDict, Field

from graphforge.context import StageContext
from graphforge.errors import SourceFormatError
from graphforge.eval import winrate
from graphforge.eval.comparisons import Comparisons, read_comparisons
from graphforge.graphdb import cypher
from graphforge.models.benchmark import task_key

GET_TASK_COVERAGE = cypher.load("eval/get_task_coverage")

CoverageLevel = Literal["occupation", "sector", "dwa"]


class GraphWinRateParams(BaseModel):
    """Options of the eval_winrate stage."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    comparisons: Path
    a: str
    b: str
    level: CoverageLevel = "occupation"
    benchmark: str | None = Field(None, description="For files without a benchmark column.")
    bootstrap: int = Field(10_000, ge=0)
    seed: int = 0
    confidence: float = Field(0.95, gt=0, lt=1)
    out_dir: Path | None = None


class TaskCoverage(BaseModel):
    task_key: str
    task_id: str
    linked: bool  # the task names an occupation found in the loaded taxonomy
    occupation: bool
    sector: bool
    dwa: bool


class GraphWinRateResult(BaseModel):
    """What the eval_winrate stage did."""

    level: CoverageLevel
    tasks: int
    covered_tasks: list[str]
    unlinked_tasks: list[str]  # no taxonomy occupation: never covered at the occupation or DWA level
    replaced_column: bool  # the file carried its own `covered` column, replaced by the graph's answer
    winrate: winrate.WinRateResult


def run(ctx: StageContext, params: GraphWinRateParams) -> GraphWinRateResult:
    """Win rates of the players split by whether the graph covers each task's occupation, sector or work
    activity."""
    cmp = read_comparisons(params.comparisons)
    keys = _task_keys(cmp, params.benchmark)
    found = {
        c.task_key: c for c in ctx.graph.read(GET_TASK_COVERAGE, TaskCoverage, task_keys=sorted(set(keys)))
    }
    missing = sorted(set(keys) - set(found))
    if missing:
        raise SourceFormatError(
            cmp.source,
            f"{len(missing)} task(s) are not in the graph, e.g. {missing[0]!r}: "
            "load the benchmark, or name it with --benchmark",
        )
    covered = [getattr(found[k], params.level) for k in keys]
    frame = cmp.frame.with_columns(pl.Series("covered", ["true" if c else "false" for c in covered]))
    attributes = cmp.attributes if "covered" in cmp.attributes else (*cmp.attributes, "covered")
    annotated = Comparisons(source=cmp.source, frame=frame, attributes=attributes)
    result = winrate.win_rates(
        annotated,
        params.a,
        params.b,
        by="covered",
        bootstrap=params.bootstrap,
        seed=params.seed,
        confidence=params.confidence,
    )
    if params.out_dir is not None:
        winrate.write_outputs(result, params.out_dir)
    tasks = sorted(set(keys))
    return GraphWinRateResult(
        level=params.level,
        tasks=len(tasks),
        covered_tasks=[found[k].task_id for k in tasks if getattr(found[k], params.level)],
        unlinked_tasks=[found[k].task_id for k in tasks if not found[k].linked],
        replaced_column="covered" in cmp.attributes,
        winrate=result,
    )


def _task_keys(cmp: Comparisons, benchmark: str | None) -> list[str]:
    """The benchmark task key of every comparison row (the file's benchmark column, else --benchmark)."""
    ids = cmp.frame["task_id"].to_list()
    if "benchmark" in cmp.attributes:
        names = cmp.frame["benchmark"].to_list()
        if benchmark is None and any(not n for n in names):
            raise SourceFormatError(
                cmp.source, "some rows have an empty benchmark column: name it with --benchmark"
            )
        return [task_key(n or benchmark or "", t) for n, t in zip(names, ids, strict=True)]
    if benchmark is None:
        raise SourceFormatError(
            cmp.source, "the file has no benchmark column: name the benchmark with --benchmark"
        )
    return [task_key(benchmark, t) for t in ids]

"""Export one RFT arm: per query the arm's pick among K judged candidates, on the query set all arms share."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import pyarrow as pa  # type: ignore[import-untyped]
from pydantic import Field

from graphforge.context import StageContext
from graphforge.export.dataset import (
    DatasetExportParams,
    ExportSummary,
    finish_export,
    replay_check,
    write_dataset,
)
from graphforge.export.record import TrajectoryText
from graphforge.export.rft_select import (
    JUDGED_ARMS,
    Candidate,
    SelectionOptions,
    group_by_query,
    select,
)
from graphforge.export.rows import counter_for
from graphforge.export.split import finish_split
from graphforge.graphdb import cypher
from graphforge.models.base import stable_hash
from graphforge.models.judge import JudgeArm

STREAM_RFT_CANDIDATES = cypher.load("export/stream_rft_candidates")
GET_RFT_JUDGED_ARMS = cypher.load("export/get_rft_judged_arms")
STREAM_TRAJECTORIES = cypher.load("export/stream_trajectories")


class ExportRftParams(DatasetExportParams):
    arm: JudgeArm
    name: str | None = None  # default "rft-<arm>"
    k: int = Field(4, ge=1)
    threshold: float = 0.95  # keep a query when the reference arm's best valid Q exceeds this
    shared_queries: bool = True
    seed: int = 0
    judge: str | None = None  # only judgments by this judge
    model: str | None = None  # only rollouts of this model (the SFT model's own samples)


ExportRftResult = ExportSummary


def run(ctx: StageContext, params: ExportRftParams) -> ExportRftResult:
    """Gate on the audit, select per query, then stream the picked trajectories into the data set."""
    decision = params.gate(ctx.graph)
    options = SelectionOptions(
        k=params.k,
        threshold=params.threshold,
        shared_queries=params.shared_queries,
        seed=params.seed,
        judge=params.judge,
    )
    present = {r["arm"] for r in ctx.graph.read_dicts(GET_RFT_JUDGED_ARMS, rollout_model=params.model)}
    compared = [a.value for a in JUDGED_ARMS if a.value in present]
    candidates = ctx.graph.stream(STREAM_RFT_CANDIDATES, Candidate, rollout_model=params.model)
    excluded = params.review_excluded(ctx.graph)  # a spec rejected in human review is no query
    dropped: list[str] = []

    def reviewed(pool: Iterable[Candidate]) -> Iterator[Candidate]:
        for c in pool:
            if c.spec_id in excluded:
                dropped.append(c.trajectory_id)
            else:
                yield c

    candidates = reviewed(candidates)
    selection = select(group_by_query(candidates), params.arm, options, compared)
    by_id = {p.trajectory_id: p for p in selection.picks}
    counter, counter_name = counter_for(params.tokenizer)
    name = params.name or f"rft-{params.arm.value}"
    rows = ctx.graph.stream(STREAM_TRAJECTORIES, TrajectoryText, trajectory_ids=sorted(by_id))
    split = params.make_split(ctx.graph)
    if split is not None:
        train = set(split.train_specs)
        rows = (t for t in rows if t.spec_id in train)

    def extra(t: TrajectoryText) -> dict[str, object]:
        pick = by_id[t.trajectory_id]
        return {"arm": params.arm.value, "q": pick.q}

    outcome = write_dataset(
        rows,
        params.out_dir,
        name,
        counter,
        params.max_tokens,
        extra_columns=[("arm", pa.string()), ("q", pa.float64())],
        extra=extra,
        check=replay_check(ctx.graph) if params.verify else None,
    )
    # The query-set digest is equal across arms exported from the same pool: compare it to check.
    manifest_selection = {
        **selection.model_dump(mode="json"),
        "query_set_sha256": stable_hash(selection.queries, length=64),
    }
    recorded = {
        "k": params.k,
        "threshold": params.threshold,
        "shared_queries": params.shared_queries,
        "seed": params.seed,
        "judge": params.judge,
        "model": params.model,
        "max_tokens": params.max_tokens,
        "token_counter": counter_name,
        "verify": params.verify,
        "reviewed_only": params.reviewed_only,
        **({"split_seed": params.split_seed, "heldout_share": params.heldout_share} if split else {}),
    }
    split_summary = finish_split(ctx.graph, split, params.out_dir, name) if split else None
    summary = finish_export(
        ctx.graph,
        params.out_dir,
        name,
        "rft",
        params.arm.value,
        outcome,
        decision,
        counter_name,
        params.max_tokens,
        recorded,
        selection=manifest_selection,
        selection_summary={**selection.summary(), "query_set_sha256": manifest_selection["query_set_sha256"]},
    )
    return summary.model_copy(update={"split": split_summary, "excluded_by_review": len(dropped)})

"""Export admitted trajectories as an SFT set for trl (JSONL + Parquet + manifest), audit-gated."""

from __future__ import annotations

from graphforge.context import StageContext
from graphforge.export.dataset import (
    DatasetExportParams,
    ExportSummary,
    finish_export,
    replay_check,
    review_gate,
    write_dataset,
)
from graphforge.export.record import TrajectoryText
from graphforge.export.rows import counter_for
from graphforge.export.split import finish_split
from graphforge.graphdb import cypher
from graphforge.models.trajectory import TrajectoryStatus

STREAM_ADMITTED_TRAJECTORIES = cypher.load("export/stream_admitted_trajectories")


class ExportSftParams(DatasetExportParams):
    name: str = "sft"  # files: <name>.jsonl, <name>.parquet, <name>.manifest.json


ExportSftResult = ExportSummary


def run(ctx: StageContext, params: ExportSftParams) -> ExportSftResult:
    """Gate on the audit, stream admitted trajectories in trajectory_id order, write, record the Export."""
    decision = params.gate(ctx.graph)
    counter, counter_name = counter_for(params.tokenizer)
    split = params.make_split(ctx.graph)
    rows = ctx.graph.stream(
        STREAM_ADMITTED_TRAJECTORIES, TrajectoryText, status=TrajectoryStatus.ADMITTED.value
    )
    if split is not None:
        train = set(split.train_specs)
        rows = (t for t in rows if t.spec_id in train)
    dropped: list[str] = []
    rows = review_gate(rows, params.review_excluded(ctx.graph), dropped)
    outcome = write_dataset(rows, params.out_dir, params.name, counter, params.max_tokens,
                            check=replay_check(ctx.graph) if params.verify else None)
    recorded = {
        "status": TrajectoryStatus.ADMITTED.value,
        "max_tokens": params.max_tokens,
        "token_counter": counter_name,
        "verify": params.verify,
        "reviewed_only": params.reviewed_only,
        **({"split_seed": params.split_seed, "heldout_share": params.heldout_share} if split else {}),
    }
    split_summary = finish_split(ctx.graph, split, params.out_dir, params.name) if split else None
    summary = finish_export(
        ctx.graph,
        params.out_dir,
        params.name,
        "sft",
        None,
        outcome,
        decision,
        counter_name,
        params.max_tokens,
        recorded,
    )
    return summary.model_copy(update={"split": split_summary, "excluded_by_review": len(dropped)})

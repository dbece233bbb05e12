"""Export admitted trajectories as an SFT set for trl (JSONL + Parquet + manifest), audit-gated."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from graphforge import cypher
from graphforge.context import StageContext
from graphforge.export.dataset import ExportSummary, finish_export, write_dataset
from graphforge.export.guard import AuditLookup, check_audit
from graphforge.export.record import TrajectoryText
from graphforge.export.rows import DEFAULT_MAX_TOKENS, counter_for
from graphforge.models.trajectory import TrajectoryStatus

STREAM_ADMITTED_TRAJECTORIES = cypher.load("export/stream_admitted_trajectories")


class ExportSftParams(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    out_dir: Path
    name: str = "sft"  # files: <name>.jsonl, <name>.parquet, <name>.manifest.json
    benchmarks: list[str] = Field(default_factory=list)  # the audit must cover these
    max_tokens: int = Field(DEFAULT_MAX_TOKENS, gt=0)
    tokenizer: Path | None = None  # tokenizer.json or a tokenizer directory; None: the byte estimate
    allow_contaminated: bool = False
    skip_audit: bool = False


ExportSftResult = ExportSummary


def run(
    ctx: StageContext, params: ExportSftParams, *, audit_lookup: AuditLookup | None = None
) -> ExportSftResult:
    """Gate on the audit, stream admitted trajectories in trajectory_id order, write, record the Export."""
    decision = check_audit(
        ctx.graph,
        params.benchmarks,
        allow_contaminated=params.allow_contaminated,
        skip_audit=params.skip_audit,
        lookup=audit_lookup,
    )
    counter, counter_name = counter_for(params.tokenizer)
    rows = ctx.graph.stream(
        STREAM_ADMITTED_TRAJECTORIES, TrajectoryText, status=TrajectoryStatus.ADMITTED.value
    )
    outcome = write_dataset(rows, params.out_dir, params.name, counter, params.max_tokens)
    recorded = {
        "status": TrajectoryStatus.ADMITTED.value,
        "max_tokens": params.max_tokens,
        "token_counter": counter_name,
    }
    return finish_export(
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

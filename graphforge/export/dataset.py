"""Stream trajectories into a trl conversational data set: length gate, rows, manifest, Export node."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa  # type: ignore[import-untyped]
from pydantic import BaseModel, ConfigDict, Field

from graphforge import __version__
from graphforge.export.guard import AuditDecision, AuditLookup, check_audit
from graphforge.export.record import ExportRow, TrajectoryText, record_export
from graphforge.export.rows import (
    DEFAULT_MAX_TOKENS,
    TokenCounter,
    canonical_tools,
    conversational_messages,
    has_assistant_turn,
    pair_tool_calls,
    row_schema,
)
from graphforge.export.split import HELDOUT_SHARE, SPLIT_SEED, Split, make_split
from graphforge.export.writer import FileEntry, RowWriter, TokenStats, git_commit, token_stats, write_json
from graphforge.graphdb.graph import Graph
from graphforge.models.base import stable_hash
from graphforge.review.verdicts import ReviewPolicy


class DatasetExportParams(BaseModel):
    """What every trajectory data set export takes: where to write, the audit gate, the length limit."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    out_dir: Path
    benchmarks: list[str] = Field(default_factory=list)  # the audit must cover these
    max_tokens: int = Field(DEFAULT_MAX_TOKENS, gt=0)
    tokenizer: Path | None = None  # tokenizer.json or a tokenizer directory; None: the byte estimate
    allow_contaminated: bool = False
    skip_audit: bool = False
    verify: bool = True  # replay every row (graphforge.export.verify) and refuse those that fail
    split: bool = False  # only the training side of a workspace split (graphforge.export.split)
    split_seed: int = SPLIT_SEED
    heldout_share: float = Field(HELDOUT_SHARE, gt=0, lt=1)
    # Human review (graphforge review): a rejected spec is never exported; an unreviewed one unless this
    # is set.
    reviewed_only: bool = False

    def review_excluded(self, graph: Graph) -> dict[str, str]:
        """spec_id -> why its trajectories are not exported (rejected in review, or not reviewed yet)."""
        return ReviewPolicy(reviewed_only=self.reviewed_only).excluded(graph)

    def make_split(self, graph: Graph) -> Split | None:
        return make_split(graph, share=self.heldout_share, seed=self.split_seed) if self.split else None

    def gate(self, graph: Graph, lookup: AuditLookup | None = None) -> AuditDecision:
        """The contamination audit decision for this export; raises when the export must not run."""
        return check_audit(
            graph,
            self.benchmarks,
            allow_contaminated=self.allow_contaminated,
            skip_audit=self.skip_audit,
            lookup=lookup,
        )


class Excluded(BaseModel):
    trajectory_id: str
    tokens: int


class Refused(BaseModel):
    trajectory_id: str
    problems: list[str]


class WriteOutcome(BaseModel):
    files: list[FileEntry]
    trajectory_ids: list[str]  # exported, in file order
    spec_ids: list[str]  # distinct, sorted
    token_counts: list[int]
    seen: int
    over_length: list[Excluded]
    no_assistant_turn: list[str]
    repaired_tool_pairing: list[str] = Field(default_factory=list)
    refused: list[Refused] = Field(default_factory=list)  # rows that failed the replay check


RowCheck = Callable[[dict[str, Any]], list[str]]  # an exported row -> its problems (empty: it passes)


def replay_check(graph: Graph) -> RowCheck:
    """The export's row check: replay the row through the agent's tools (graphforge.export.verify)."""
    from graphforge.export.verify import check_row

    def check(row: dict[str, Any]) -> list[str]:
        return check_row(graph, row).problems

    return check


def write_dataset(
    rows: Iterable[TrajectoryText],
    out_dir: Path,
    name: str,
    counter: TokenCounter,
    max_tokens: int,
    extra_columns: Sequence[tuple[str, pa.DataType]] = (),
    extra: Callable[[TrajectoryText], dict[str, Any]] | None = None,
    check: RowCheck | None = None,
) -> WriteOutcome:
    """Write every row that fits ``max_tokens`` (whole, never truncated); count the rest.

    Memory holds one Parquet row group plus one id and one length per exported row.
    """
    exported: list[str] = []
    counts: list[int] = []
    specs: set[str] = set()
    over: list[Excluded] = []
    empty: list[str] = []
    repaired: list[str] = []
    refused: list[Refused] = []
    seen = 0
    with RowWriter(out_dir, name, row_schema(extra_columns)) as writer:
        for t in rows:
            seen += 1
            messages, fixed = pair_tool_calls(conversational_messages(t.messages_json, t.trajectory_id))
            tools = canonical_tools(t.tools_json)
            if not has_assistant_turn(messages):
                empty.append(t.trajectory_id)
                continue
            if fixed:
                repaired.append(t.trajectory_id)
            tokens = counter(messages, tools)
            if tokens > max_tokens:
                over.append(Excluded(trajectory_id=t.trajectory_id, tokens=tokens))
                continue
            row: dict[str, Any] = {
                "messages": messages,
                "tools": tools,
                "trajectory_id": t.trajectory_id,
                "spec_id": t.spec_id,
            }
            if check is not None:
                problems = check(row)
                if problems:
                    refused.append(Refused(trajectory_id=t.trajectory_id, problems=problems))
                    continue
            if extra is not None:
                row.update(extra(t))
            writer.add(row)
            exported.append(t.trajectory_id)
            counts.append(tokens)
            if t.spec_id:
                specs.add(t.spec_id)
        files = writer.close()
    return WriteOutcome(
        files=files,
        trajectory_ids=exported,
        spec_ids=sorted(specs),
        token_counts=counts,
        seen=seen,
        over_length=over,
        no_assistant_turn=empty,
        repaired_tool_pairing=repaired,
        refused=refused,
    )


class ExportCounts(BaseModel):
    seen: int
    exported: int
    excluded_over_length: int
    excluded_no_assistant_turn: int
    repaired_tool_pairing: int = 0  # rows whose unanswered tool calls / orphan tool results were dropped
    refused_replay: int = 0  # rows whose replay failed (graphforge export verify)


class ExportManifest(BaseModel):
    """Everything needed to trace a data set back to the graph; deterministic (no timestamps)."""

    schema_version: int = 1
    export_id: str
    kind: str
    arm: str | None = None
    format: str = "trl-conversational (messages with OpenAI tool_calls; tools as JSON text)"
    files: list[FileEntry]
    counts: ExportCounts
    tokens: TokenStats
    excluded_over_length: list[Excluded]
    excluded_no_assistant_turn: list[str]
    repaired_tool_pairing: list[str] = Field(default_factory=list)
    refused_replay: list[Refused] = Field(default_factory=list)
    audit: AuditDecision
    git_commit: str
    graphforge_version: str = __version__
    params: dict[str, Any]
    selection: dict[str, Any] | None = None  # RFT: the query set and the rule that picked each row
    spec_ids: list[str]
    trajectory_ids: list[str]


class ExportSummary(BaseModel):
    """What an export stage returns."""

    export_id: str
    kind: str
    arm: str | None = None
    out_dir: str
    files: list[FileEntry]
    manifest: FileEntry
    rows: int
    seen: int
    excluded_over_length: int
    excluded_no_assistant_turn: int
    refused_replay: int = 0
    refused: list[Refused] = Field(default_factory=list)
    audit_id: str | None
    override: str
    tokens: TokenStats
    selection: dict[str, Any] | None = None  # RFT: query and pick counts (the full lists are in the manifest)
    split: dict[str, Any] | None = None  # with --split: the split and its contamination audit
    # Trajectories left out because human review rejected their spec (or, with reviewed_only, has not
    # reviewed it yet).
    excluded_by_review: int = 0


def review_gate(rows: Iterable[TrajectoryText], excluded: dict[str, str], dropped: list[str]
                ) -> Iterator[TrajectoryText]:
    """The rows whose spec human review lets through; the ids of the others are appended to dropped."""
    for row in rows:
        if row.spec_id is not None and row.spec_id in excluded:
            dropped.append(row.trajectory_id)
        else:
            yield row


def empty_reason(summary: ExportSummary) -> str | None:
    """Why an export wrote no row, in words a user can act on (None when it wrote rows)."""
    if summary.rows:
        return None
    why: list[str] = []
    if not summary.seen:
        why.append("no admitted trajectory of a current spec (run `graphforge admit` after judging)"
                   if summary.kind == "sft" else "no candidate trajectory of a current spec")
    if summary.excluded_over_length:
        why.append(f"{summary.excluded_over_length} over --max-tokens")
    if summary.excluded_no_assistant_turn:
        why.append(f"{summary.excluded_no_assistant_turn} without an assistant turn")
    if summary.excluded_by_review:
        why.append(f"{summary.excluded_by_review} of a spec rejected in human review (or not reviewed, "
                   "with --reviewed-only)")
    if summary.refused_replay:
        why.append(f"{summary.refused_replay} refused: their replay failed (`graphforge export verify`)")
    sel = summary.selection or {}
    for key, words in (("under_k", "queries with fewer than --k candidates (lower --k)"),
                       ("below_threshold", "queries whose best anchored Q is not above --threshold"),
                       ("incomplete", "queries with a candidate not judged by every compared arm"),
                       ("without_valid_pick", "queries without a valid pick")):
        if sel.get(key):
            why.append(f"{sel[key]} {words}")
    return "; ".join(why) or "nothing was selected"


def finish_export(
    graph: Graph,
    out_dir: Path,
    name: str,
    kind: str,
    arm: str | None,
    outcome: WriteOutcome,
    decision: AuditDecision,
    counter_name: str,
    max_tokens: int,
    params: dict[str, Any],
    selection: dict[str, Any] | None = None,
    selection_summary: dict[str, Any] | None = None,
) -> ExportSummary:
    """Write the manifest, MERGE the Export node with its INCLUDES edges, and summarise."""
    # Content-derived id: the same graph and options give the same id (and the same Export node).
    digest = stable_hash(
        kind, arm, [f.sha256 for f in outcome.files], decision.audit_id, decision.override.value, params
    )
    export_id = f"{kind}-{digest}"
    stats = token_stats(outcome.token_counts, counter_name, max_tokens)
    counts = ExportCounts(
        seen=outcome.seen,
        exported=len(outcome.trajectory_ids),
        excluded_over_length=len(outcome.over_length),
        excluded_no_assistant_turn=len(outcome.no_assistant_turn),
        repaired_tool_pairing=len(outcome.repaired_tool_pairing),
        refused_replay=len(outcome.refused),
    )
    commit = git_commit()
    manifest = ExportManifest(
        export_id=export_id,
        kind=kind,
        arm=arm,
        files=outcome.files,
        counts=counts,
        tokens=stats,
        excluded_over_length=outcome.over_length,
        excluded_no_assistant_turn=outcome.no_assistant_turn,
        repaired_tool_pairing=outcome.repaired_tool_pairing,
        refused_replay=outcome.refused,
        audit=decision,
        git_commit=commit,
        params=params,
        selection=selection,
        spec_ids=outcome.spec_ids,
        trajectory_ids=outcome.trajectory_ids,
    )
    entry = write_json(out_dir / f"{name}.manifest.json", manifest)
    record_export(
        graph,
        ExportRow(
            export_id=export_id,
            kind=kind,
            arm=arm,
            override=decision.override.value,
            override_note=decision.note,
            audit_id=decision.audit_id,
            benchmarks=decision.benchmarks,
            rows=counts.exported,
            excluded_over_length=counts.excluded_over_length,
            max_tokens=max_tokens,
            token_counter=counter_name,
            out_dir=str(out_dir.resolve()),
            manifest=entry.path,
            manifest_sha256=entry.sha256,
            git_commit=commit,
        ),
        outcome.trajectory_ids,
    )
    return ExportSummary(
        export_id=export_id,
        kind=kind,
        arm=arm,
        out_dir=str(out_dir),
        files=outcome.files,
        manifest=entry,
        rows=counts.exported,
        seen=counts.seen,
        excluded_over_length=counts.excluded_over_length,
        excluded_no_assistant_turn=counts.excluded_no_assistant_turn,
        refused_replay=counts.refused_replay,
        refused=outcome.refused,
        audit_id=decision.audit_id,
        override=decision.override.value,
        tokens=stats,
        selection=selection_summary,
    )

"""Read models for exported trajectories and the Export node that records each export in the graph."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

from graphforge.graphdb import cypher
from graphforge.graphdb.graph import Graph
from graphforge.models.base import Row

MERGE_EXPORTS = cypher.load("export/merge_exports")
LINK_EXPORT_TRAJECTORIES = cypher.load("export/link_export_trajectories")
GET_EXPORTS = cypher.load("export/get_exports")


class TrajectoryText(BaseModel):
    """The parts of a stored trajectory an export writes."""

    trajectory_id: str
    spec_id: str | None
    messages_json: str
    tools_json: str | None


class ExportRow(Row):
    export_id: str
    kind: str  # "sft" | "rft" | "rubrics"
    arm: str | None
    override: str  # "none" | "allow-contaminated" | "skip-audit"
    override_note: str
    audit_id: str | None
    benchmarks: list[str]
    rows: int
    excluded_over_length: int
    max_tokens: int | None
    token_counter: str | None
    out_dir: str
    manifest: str  # manifest file name inside out_dir
    manifest_sha256: str
    git_commit: str


class IncludesRow(Row):
    export_id: str
    trajectory_id: str


def record_export(graph: Graph, row: ExportRow, trajectory_ids: Sequence[str]) -> int:
    """MERGE the Export node and its INCLUDES edges; returns the number of edges written."""
    graph.write(MERGE_EXPORTS, [row])
    return graph.write(
        LINK_EXPORT_TRAJECTORIES,
        (IncludesRow(export_id=row.export_id, trajectory_id=t) for t in trajectory_ids),
    )


class ExportInfo(BaseModel):
    export_id: str
    kind: str
    arm: str | None
    override: str
    audit_id: str | None
    rows: int
    included: list[str]


def list_exports(graph: Graph) -> list[ExportInfo]:
    """Every Export node with the ids of the trajectories it includes."""
    return graph.read(GET_EXPORTS, ExportInfo)

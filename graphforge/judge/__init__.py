"""The judge: deterministic deliverable checks, anchored verifiers, the chat-model verifier and Q.

view = load_view(graph, spec_id)                # spec, anchors down to span text, workspace files (Cypher)
judgment, report = judge_attempt(view, files, JudgeArm.ANCHORED, trajectory_id=t.trajectory_id)
"""

from __future__ import annotations

from graphforge.graphdb import cypher
from graphforge.graphdb.graph import Graph
from graphforge.judge.checks import DeliverableReport, check_deliverables
from graphforge.judge.core import judge_attempt, score_criteria
from graphforge.judge.view import Anchor, FigureSource, JudgeView, WorkspaceFile
from graphforge.models.evidence import DependencyKind

GET_ANCHOR_SCALES = cypher.load("judge/get_anchor_scales")
GET_WORKSPACE_SOURCES = cypher.load("judge/get_workspace_sources")
GET_SUPERSEDED_FILES = cypher.load("judge/get_superseded_files")
GET_AGREEING_SOURCES = cypher.load("judge/get_agreeing_sources")

__all__ = ["Anchor", "DeliverableReport", "JudgeView", "WorkspaceFile", "check_deliverables", "judge_attempt",
           "load_view", "score_criteria"]


def load_view(graph: Graph, spec_id: str) -> JudgeView:
    """From Neo4j: the spec, each criterion's anchors (fact, span text, file path, role), the workspace files
    (path, role, later versions) and the other files stating each anchored figure in agreement."""
    from graphforge.stores import specs as specs_store

    spec = specs_store.load_spec(graph, spec_id)
    rows = specs_store.criterion_anchors(graph, spec_id)
    scales = {r["fact_id"]: float(r["scale"]) for r in graph.read_dicts(GET_ANCHOR_SCALES, spec_id=spec_id)}
    by_criterion: dict[str, dict[str, Anchor]] = {}
    for row in rows:
        data = {**row.model_dump(), "scale": scales.get(row.fact_id, 1.0)}
        by_criterion.setdefault(row.criterion_id, {})[row.fact_id] = Anchor.model_validate(data)
    # Keep each criterion's anchor order (difference and ratio depend on it).
    anchors = {c.criterion_id: [by_criterion.get(c.criterion_id, {})[f] for f in c.anchors
                                if f in by_criterion.get(c.criterion_id, {})]
               for c in spec.criteria}
    # Which files are later versions of which, and which also state an anchored figure: citations are checked
    # against the graph (graphforge.judge.standing).
    newer: dict[str, list[str]] = {}
    later = DependencyKind.SUPERSEDES.value
    for r in graph.read_dicts(GET_SUPERSEDED_FILES, spec_id=spec_id, supersedes=later):
        newer.setdefault(str(r["path"]), []).append(str(r["newer"]))
    files = [WorkspaceFile(path=r["path"], sha256=r["sha256"] or "", role=r["role"],
                           superseded_by=newer.get(r["path"], []))
             for r in graph.read_dicts(GET_WORKSPACE_SOURCES, spec_id=spec_id)]
    agreeing: dict[str, list[FigureSource]] = {}
    for r in graph.read_dicts(GET_AGREEING_SOURCES, spec_id=spec_id, compare=DependencyKind.COMPARE.value):
        source = FigureSource(path=r["path"], locator=r["locator"] or "")
        agreeing.setdefault(str(r["fact_id"]), []).append(source)
    return JudgeView(spec=spec, anchors=anchors, files=files, agreeing=agreeing)

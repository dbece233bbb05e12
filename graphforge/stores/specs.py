"""Persist task specs in Neo4j and read them back with full fidelity; the agent's view; anchors for judges."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from graphforge.errors import GraphforgeError
from graphforge.graphdb import cypher
from graphforge.graphdb.graph import Graph
from graphforge.models.base import Row, stable_hash
from graphforge.models.spec import AgentView, CriterionSpec, DeliverableSpec, TaskSpec

MERGE_TASK_SPECS = cypher.load("specs/merge_task_specs")
MERGE_DELIVERABLES = cypher.load("specs/merge_deliverables")
MERGE_CRITERIA = cypher.load("specs/merge_criteria")
DELETE_STALE_SPEC_PARTS = cypher.load("specs/delete_stale_spec_parts")
GET_TASK_SPEC = cypher.load("specs/get_task_spec")
GET_WORKSPACE_FILES = cypher.load("specs/get_workspace_files")
GET_CRITERION_ANCHORS = cypher.load("specs/get_criterion_anchors")
GET_SPEC_VERSIONS = cypher.load("specs/get_spec_versions")
GET_SPEC_WORKSPACE = cypher.load("rollouts/get_spec_workspace")
LINK_PREVIOUS_VERSIONS = cypher.load("specs/link_previous_versions")


class SpecNotFoundError(GraphforgeError):
    """No TaskSpec with the requested spec_id is in the graph."""


class TaskSpecRow(Row):
    spec_id: str
    schema_version: int
    base_id: str
    version: int
    workspace_id: str
    seed_id: str | None
    statement: str
    statement_hash: str
    compiler: str
    revised_from: str | None
    family: str | None
    family_reason: str
    # sha256 over the (path, sha256) of every file of the workspace when the spec was compiled; None: unknown
    # (hand-saved specs, revisions), and a re-save keeps what was recorded.
    workspace_fingerprint: str | None = None


class DeliverableRow(Row):
    deliverable_id: str
    spec_id: str
    ordinal: int
    name: str
    format: str
    description: str
    required_sheets: list[str]
    required_formulas: list[str]
    required_sections: list[str]
    required_columns: list[str]
    required_keys: list[str]


class CriterionRow(Row):
    criterion_id: str
    spec_id: str
    ordinal: int
    deliverable_id: str
    polarity: str
    kind: str
    weight: float
    requirement: str
    target_deliverable: str
    target_location: str | None
    expected: str | None
    expected_value: float | None
    tolerance: float
    computation: str | None
    verification: str
    anchors: list[str]
    check: str | None
    fact_kind: str | None
    label: str | None


class AnchorEvidence(BaseModel):
    """One anchor of a criterion, down to the span text and the file it sits in (judge-only)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    criterion_id: str
    position: int  # index of the fact in the criterion's anchors (computations read anchors in this order)
    fact_id: str
    statement: str
    value: str
    value_num: float | None
    unit: str | None
    metric: str | None
    period: str | None
    span_id: str
    locator: str
    span_text: str
    sha256: str
    path: str | None  # workspace-relative path (None when the file is not in the spec's workspace)
    role: str | None  # hidden role of the file; never shown to the working agent


def spec_rows(spec: TaskSpec) -> tuple[TaskSpecRow, list[DeliverableRow], list[CriterionRow]]:
    """Split a spec into the write payloads of its node, deliverables and criteria (pure)."""
    head = TaskSpecRow(spec_id=spec.spec_id, schema_version=spec.schema_version, base_id=spec.base_id,
                       version=spec.version, workspace_id=spec.workspace_id, seed_id=spec.seed_id,
                       statement=spec.statement, statement_hash=spec.statement_hash, compiler=spec.compiler,
                       revised_from=spec.revised_from, family=spec.family,
                       family_reason=spec.family_reason)
    by_name = {d.name: d.deliverable_id for d in spec.deliverables}
    deliverables = [DeliverableRow(spec_id=spec.spec_id, ordinal=i, **d.model_dump(mode="json"))
                    for i, d in enumerate(spec.deliverables)]
    criteria = [
        CriterionRow(
            spec_id=spec.spec_id,
            ordinal=i,
            deliverable_id=by_name.get(c.target_deliverable, f"{spec.spec_id}/{c.target_deliverable}"),
            **c.model_dump(mode="json"),
        )
        for i, c in enumerate(spec.criteria)
    ]
    return head, deliverables, criteria


def save_spec(graph: Graph, spec: TaskSpec, workspace_fingerprint: str | None = None) -> int:
    """Write a spec (node, deliverables, criteria, TARGETS and ANCHORED_TO edges); idempotent.

    Returns the number of rows written. Parts a previous save listed but this spec does not are removed: this
    rewrites the spec in place. Compiled specs go through ``save_version``, which never does.
    """
    head, deliverables, criteria = spec_rows(spec)
    head = head.model_copy(update={"workspace_fingerprint": workspace_fingerprint})
    written = graph.write(MERGE_TASK_SPECS, [head])
    keep = [d.deliverable_id for d in deliverables] + [c.criterion_id for c in criteria]
    graph.execute(DELETE_STALE_SPEC_PARTS, spec_id=spec.spec_id, keep_ids=keep)
    written += graph.write(MERGE_DELIVERABLES, deliverables)
    written += graph.write(MERGE_CRITERIA, criteria)
    return written


class PreviousVersionRow(Row):
    spec_id: str
    previous: str


class SavedVersion(BaseModel):
    """What ``save_version`` did with a compiled spec."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    spec: TaskSpec  # the spec as it is in the graph now (a new version carries its new id)
    outcome: Literal["new", "unchanged", "new_version"]
    previous: str | None = None  # the version a new version follows (PREVIOUS_VERSION)


def workspace_fingerprint(graph: Graph, workspace_id: str) -> str:
    """sha256 over the (path, sha256) of every file of a workspace: changes when any file is added, removed,
    renamed or edited."""
    rows = graph.read_dicts(GET_WORKSPACE_FILES, workspace_id=workspace_id)
    return stable_hash(sorted((str(r["path"]), str(r["sha256"])) for r in rows), length=32)


def content_key(spec: TaskSpec) -> str:
    """A hash of what a spec asks and checks, without its id and version (ids inside it are made relative).

    ``family_reason`` says why the family was picked (a seed, ``--family``, ``--all-families``): not what the
    spec asks, so compiling an unchanged workspace another way is no new version.
    """
    prefix = spec.spec_id + "/"
    body = spec.model_dump(mode="json", exclude={"spec_id", "version", "revised_from", "family_reason"})
    for part in ("deliverables", "criteria"):
        for item in body[part]:
            for key in ("deliverable_id", "criterion_id"):
                if isinstance(item.get(key), str) and item[key].startswith(prefix):
                    item[key] = item[key][len(prefix):]
    return stable_hash(body, length=32)


def as_version(spec: TaskSpec, version: int) -> TaskSpec:
    """The same spec under ``<base_id>@v<version>`` (its deliverable and criterion ids follow)."""
    new_id = f"{spec.base_id}@v{version}"
    old = spec.spec_id + "/"

    def moved(value: str) -> str:
        return new_id + "/" + value[len(old):] if value.startswith(old) else value

    return spec.model_copy(update={
        "spec_id": new_id, "version": version,
        "deliverables": [d.model_copy(update={"deliverable_id": moved(d.deliverable_id)})
                         for d in spec.deliverables],
        "criteria": [c.model_copy(update={"criterion_id": moved(c.criterion_id)}) for c in spec.criteria],
    })


def save_version(graph: Graph, spec: TaskSpec) -> SavedVersion:
    """Save a compiled spec as a version: a spec is never overwritten once saved.

    - No version of its base yet: saved as it is.
    - The newest compiled version (not a revision) asks and checks the same over the same workspace files:
      nothing is written (re-compiling an unchanged workspace changes nothing).
    - Otherwise (the workspace or what it compiles to changed): saved as the next version number of its base,
      linked ``(new)-[:PREVIOUS_VERSION]->(newest)``; older versions keep their criteria, anchors and
      trajectories.
    """
    fingerprint = workspace_fingerprint(graph, spec.workspace_id)
    versions = graph.read_dicts(GET_SPEC_VERSIONS, base_id=spec.base_id)
    if not versions:
        save_spec(graph, spec, fingerprint)
        return SavedVersion(spec=spec, outcome="new")
    compiled = [v for v in versions if v["revised_from"] is None]
    if compiled:
        latest = load_spec(graph, str(compiled[0]["spec_id"]))
        same_files = compiled[0]["workspace_fingerprint"] in (None, fingerprint)
        if same_files and content_key(latest) == content_key(spec):
            if compiled[0]["workspace_fingerprint"] is None:  # saved before fingerprints: record it, once
                save_spec(graph, latest, fingerprint)
            return SavedVersion(spec=latest, outcome="unchanged")
    newest = versions[0]
    fresh = as_version(spec, int(newest["version"]) + 1)
    save_spec(graph, fresh, fingerprint)
    graph.write(LINK_PREVIOUS_VERSIONS, [PreviousVersionRow(spec_id=fresh.spec_id,
                                                            previous=str(newest["spec_id"]))])
    return SavedVersion(spec=fresh, outcome="new_version", previous=str(newest["spec_id"]))


def save_specs(graph: Graph, specs: Iterable[TaskSpec]) -> int:
    return sum(save_spec(graph, s) for s in specs)


def _pick(data: dict[str, Any], model: type[BaseModel]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k in model.model_fields}


def load_spec(graph: Graph, spec_id: str) -> TaskSpec:
    """Read a spec back from Neo4j; equal to the TaskSpec that was saved."""
    rows = graph.read_dicts(GET_TASK_SPEC, spec_id=spec_id)
    if not rows:
        raise SpecNotFoundError(f"no TaskSpec with spec_id {spec_id!r} in the graph")
    row = rows[0]
    deliverables = [DeliverableSpec.model_validate(_pick(d, DeliverableSpec)) for d in row["deliverables"]]
    criteria = [CriterionSpec.model_validate(_pick(c, CriterionSpec)) for c in row["criteria"]]
    return TaskSpec.model_validate({**_pick(row["spec"], TaskSpec), "deliverables": deliverables,
                                    "criteria": criteria})


def workspace_files(graph: Graph, workspace_id: str) -> list[str]:
    """Workspace-relative paths of every file in a workspace, sorted."""
    return [str(r["path"]) for r in graph.read_dicts(GET_WORKSPACE_FILES, workspace_id=workspace_id)]


def agent_view(spec: TaskSpec, files: Sequence[str]) -> AgentView:
    """What the working agent may see: statement, workspace paths and deliverable names, nothing hidden."""
    return AgentView(spec_id=spec.spec_id, statement=spec.statement, files=sorted(files),
                     deliverables=[d.name for d in spec.deliverables])


def agent_view_from_graph(graph: Graph, spec_id: str) -> AgentView:
    """The agent's view of a saved spec, with the file list read from its workspace in the graph."""
    spec = load_spec(graph, spec_id)
    return agent_view(spec, workspace_files(graph, spec.workspace_id))


def spec_workspace(graph: Graph, spec_id: str) -> tuple[AgentView, Path | None]:
    """The agent's view of a saved spec and its workspace folder on this machine (None when not here).

    A workspace not loaded into this graph (no file list) gives the agent every file of its folder."""
    view = agent_view_from_graph(graph, spec_id)
    found = graph.read_dicts(GET_SPEC_WORKSPACE, spec_id=spec_id)
    root = Path(str(found[0]["root"])) if found and found[0].get("root") else None
    if root is None or not root.is_dir():
        return view, None
    if not view.files:
        files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
        view = view.model_copy(update={"files": files})
    return view, root


def criterion_anchors(graph: Graph, spec_id: str) -> list[AnchorEvidence]:
    """Every (criterion, anchored fact, span, file) of a saved spec, ordered by criterion."""
    return graph.read(GET_CRITERION_ANCHORS, AnchorEvidence, spec_id=spec_id)

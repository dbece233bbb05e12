"""Export specs for human review as a Label Studio project (labeling config + tasks), optionally pushed to a
running Label Studio through its REST API."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from graphforge.context import StageContext
from graphforge.errors import ConfigError, ExportError
from graphforge.export.writer import FileEntry, sha256_file, write_json
from graphforge.graphdb import cypher
from graphforge.models.base import stable_hash
from graphforge.review.label_studio import (
    LABEL_CONFIG,
    TOOL,
    AnchorText,
    LabelStudioClient,
    LabelStudioTarget,
    build_task,
)
from graphforge.review.verdicts import review_states
from graphforge.stores import specs as specs_store

STREAM_REVIEW_SPECS = cypher.load("export/stream_current_specs")

CONFIG_FILE, TASKS_FILE, MANIFEST_FILE = "label_config.xml", "tasks.json", "review.manifest.json"


class SpecId(BaseModel):
    spec_id: str


class ReviewExportParams(BaseModel):
    """Options of the review_export stage."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    out_dir: Path = Field(description="Folder for label_config.xml, tasks.json and review.manifest.json.")
    spec_ids: list[str] | None = Field(None, description="These specs (default: every current spec).")
    unreviewed_only: bool = Field(False, description="Leave out specs that already carry a verdict.")
    label_studio: LabelStudioTarget | None = Field(None, description="Also create the project there.")


class ReviewManifest(BaseModel):
    """What a review export holds, written beside it."""

    schema_version: int = 1
    export_id: str
    tool: str = TOOL
    created_at: str
    specs: int
    criteria: int
    anchors: int
    spec_ids: list[str]
    files: list[FileEntry]
    how_to: str = ("Label Studio: Create Project > Labeling Setup > Code: paste label_config.xml; "
                   "Data Import: upload tasks.json. Back: Export > JSON, then "
                   "`graphforge review import FILE`.")


class PushedProject(BaseModel):
    """The Label Studio project the tasks went to."""

    url: str
    project: int
    tasks: int
    project_url: str


class ReviewExportResult(BaseModel):
    """What the review_export stage wrote (and pushed)."""

    export_id: str
    out_dir: str
    specs: int
    criteria: int
    anchors: int
    already_reviewed: int  # current specs left out by unreviewed_only
    files: list[FileEntry]
    pushed: PushedProject | None = None


def run(ctx: StageContext, params: ReviewExportParams) -> ReviewExportResult:
    """One Label Studio task per spec (statement, deliverables, each criterion with its anchored spans),
    the labeling config that shows them, written to out_dir and optionally pushed to Label Studio."""
    ids = params.spec_ids or [r.spec_id for r in ctx.graph.stream(STREAM_REVIEW_SPECS, SpecId,
                                                                   only_admitted=False)]
    states = review_states(ctx.graph, ids)
    missing = sorted(set(ids) - set(states))
    if missing:
        raise ConfigError(f"no spec {missing[0]!r} in the graph ({len(missing)} unknown); "
                          "`graphforge list specs` lists them")
    reviewed = [sid for sid in ids if states[sid].reviewed] if params.unreviewed_only else []
    ids = [sid for sid in ids if sid not in set(reviewed)]
    created = dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()
    export_id = f"review-{stable_hash(ids, created)}"
    tasks, criteria, anchors = [], 0, 0
    for spec_id in ids:
        spec = specs_store.load_spec(ctx.graph, spec_id)
        evidence = [AnchorText.model_validate(a.model_dump())
                    for a in specs_store.criterion_anchors(ctx.graph, spec_id)]
        tasks.append(build_task(spec, evidence, export_id))
        criteria += len(spec.criteria)
        anchors += len(evidence)
    out = params.out_dir
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / CONFIG_FILE).write_text(LABEL_CONFIG, encoding="utf-8")
        (out / TASKS_FILE).write_text(json.dumps(tasks, ensure_ascii=False, indent=1) + "\n",
                                      encoding="utf-8")
    except OSError as exc:
        raise ExportError(f"{out}: cannot write the review project: {exc.strerror}") from exc
    files = [FileEntry(path=name, sha256=sha256_file(out / name), bytes=(out / name).stat().st_size,
                       rows=rows)
             for name, rows in ((CONFIG_FILE, 1), (TASKS_FILE, len(tasks)))]
    manifest = ReviewManifest(export_id=export_id, created_at=created, specs=len(ids), criteria=criteria,
                              anchors=anchors, spec_ids=ids, files=files)
    files.append(write_json(out / MANIFEST_FILE, manifest))
    pushed = _push(params.label_studio, tasks, created) if params.label_studio and tasks else None
    return ReviewExportResult(export_id=export_id, out_dir=str(out), specs=len(ids), criteria=criteria,
                              anchors=anchors, already_reviewed=len(reviewed), files=files, pushed=pushed)


def _push(target: LabelStudioTarget, tasks: list[dict[str, object]], created: str) -> PushedProject:
    with LabelStudioClient(target.url, target.token.get_secret_value()) as client:
        project = target.project or client.create_project(
            target.title or f"GraphForge review {created[:16].replace('T', ' ')}", LABEL_CONFIG,
            "Task specs from GraphForge: accept or reject each spec and each criterion (or edit its "
            "requirement); `graphforge review import` reads the verdicts back.")
        count = client.import_tasks(project, tasks)
        return PushedProject(url=client.url, project=project, tasks=count,
                             project_url=client.project_url(project))

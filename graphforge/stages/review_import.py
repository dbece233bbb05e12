"""Import reviewers' verdicts (accept / reject / edited text, reviewer, time) from Label Studio into the
graph, from its JSON export file or straight from a running Label Studio's project."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

from graphforge.context import StageContext
from graphforge.errors import ConfigError
from graphforge.review.label_studio import (
    TOOL,
    LabelStudioClient,
    LabelStudioTarget,
    ParsedVerdict,
    parse_export,
    read_export_file,
)
from graphforge.review.verdicts import ReviewRow, review_targets, write_reviews


class ReviewImportParams(BaseModel):
    """Options of the review_import stage: a Label Studio JSON export file, or a project to pull."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    file: Path | None = Field(None, description="A JSON export of the review project (Export > JSON).")
    label_studio: LabelStudioTarget | None = Field(None, description="Pull the project's annotations.")

    @model_validator(mode="after")
    def _one_source(self) -> ReviewImportParams:
        if (self.file is None) == (self.label_studio is None):
            raise ConfigError("review import reads one source: an export FILE, or --url with --project")
        if self.label_studio is not None and self.label_studio.project is None:
            raise ConfigError("--project: which Label Studio project to read (its number, in the URL "
                              "/projects/N/)")
        return self


class Skipped(BaseModel):
    target_id: str
    reason: str


class ReviewImportResult(BaseModel):
    """What the review_import stage read and stored."""

    source: str
    annotations: int  # submitted annotations read
    unannotated_tasks: int
    verdicts: int  # verdicts read
    written: int  # Review nodes written (a re-import rewrites the same ones)
    specs: dict[str, int]  # spec verdicts by kind (accept, reject)
    criteria: dict[str, int]  # criterion verdicts by kind (accept, reject, edit)
    reviewers: list[str]
    skipped: list[Skipped]  # verdicts on a spec or criterion the graph no longer holds as the reviewer saw it
    problems: list[str]  # annotations that could not be read, one line each


def run(ctx: StageContext, params: ReviewImportParams) -> ReviewImportResult:
    """Read the annotations, check each verdict against the graph, store the rest as Review nodes."""
    if params.label_studio is not None:
        target = params.label_studio
        project = int(target.project or 0)
        with LabelStudioClient(target.url, target.token.get_secret_value()) as client:
            tasks, users = client.export_tasks(project), client.users()
            source = client.project_url(project)
    else:
        path = params.file or Path()
        tasks, users, source = read_export_file(path), {}, str(path)
    parsed = parse_export(tasks, users)
    kept, skipped = check_targets(parsed.verdicts, review_targets(ctx.graph, sorted(
        {v.spec_id for v in parsed.verdicts})))
    rows = [ReviewRow(review_id=v.review_id, target_kind=v.target_kind, target_id=v.target_id,
                      spec_id=v.spec_id, verdict=v.verdict.value, text=v.text, seen_text=v.seen_text,
                      reviewer=v.reviewer, reviewed_at=v.reviewed_at, tool=TOOL, source=source,
                      annotation=v.annotation, ls_task=v.ls_task, ls_project=v.ls_project) for v in kept]
    written = write_reviews(ctx.graph, rows)
    return ReviewImportResult(
        source=source, annotations=parsed.annotations, unannotated_tasks=parsed.skipped_tasks,
        verdicts=len(parsed.verdicts), written=written,
        specs=dict(Counter(v.verdict.value for v in kept if v.target_kind == "spec")),
        criteria=dict(Counter(v.verdict.value for v in kept if v.target_kind == "criterion")),
        reviewers=sorted({v.reviewer for v in kept}), skipped=skipped, problems=parsed.problems)


def check_targets(verdicts: list[ParsedVerdict], targets: dict[str, dict[str, str]]
                  ) -> tuple[list[ParsedVerdict], list[Skipped]]:
    """Keep the verdicts whose spec and criterion the graph holds with the requirement the reviewer saw
    (pure)."""
    kept: list[ParsedVerdict] = []
    skipped: list[Skipped] = []
    for v in verdicts:
        criteria = targets.get(v.spec_id)
        if criteria is None:
            skipped.append(Skipped(target_id=v.target_id, reason=f"no spec {v.spec_id} in the graph"))
        elif v.target_kind == "criterion" and v.target_id not in criteria:
            skipped.append(Skipped(target_id=v.target_id, reason="the spec no longer has this criterion"))
        elif (v.target_kind == "criterion" and v.seen_text is not None
              and " ".join(criteria[v.target_id].split()) != " ".join(v.seen_text.split())):
            skipped.append(Skipped(target_id=v.target_id, reason="its requirement changed since the export; "
                                                                 "export it for review again"))
        else:
            kept.append(v)
    return kept, skipped

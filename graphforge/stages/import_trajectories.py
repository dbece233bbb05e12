"""Import trajectories written by other scaffolds: read them (loaders.trajectories), MERGE them by id.

Re-importing the same logs changes nothing. Each file's outcome is in ``files`` (imported N, or
skipped with the reason); ``trajectories == 0`` means the run imported nothing.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

from graphforge.context import StageContext
from graphforge.errors import ConfigError
from graphforge.models.trajectory import Trajectory
from graphforge.stores.trajectories import save_trajectories
from loaders.trajectories import AUTO, FileOutcome, check_format, format_choices, read_trajectories


class ImportTrajectoriesParams(BaseModel):
    """What to import: a log file or folder, read as one trajectory format or told apart by content."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: Path = Field(description="A log file, a folder searched recursively, or a folder one format reads "
                                   "as one log (an OpenHands events/ folder).")
    format: str = Field(AUTO, description="auto (told from each file's content) or a registered trajectory "
                                          "format (loaders.trajectories.formats).")
    spec_id: str | None = Field(None, description="The spec the trajectories attempt.")
    deliverables_dir: Path | None = Field(None, description="Files attached to every imported trajectory.")

    @field_validator("format")
    @classmethod
    def _known_format(cls, value: str) -> str:
        try:
            return check_format(value)
        except ConfigError as exc:
            raise ValueError(f"{exc} (one of {format_choices()})") from exc


class ImportTrajectoriesResult(BaseModel):
    """What the import_trajectories stage did."""

    files: list[FileOutcome]
    imported_files: int
    skipped_files: int
    ignored: dict[str, int]  # files in the folder that are no log, by suffix
    trajectories: int
    written: int
    by_scaffold: dict[str, int]
    messages: int
    prompt_tokens: int
    completion_tokens: int
    warnings: int


def run(ctx: StageContext, params: ImportTrajectoriesParams) -> ImportTrajectoriesResult:
    # Each log file is written as soon as it is read: memory holds one file's trajectories, not a folder's
    # (a folder of the paper's 162k-token logs is gigabytes). A re-run MERGEs the same ids again.
    """Read the logs at ``params.path`` (one format, or each file's own) and MERGE their trajectories by
    id, a file at a time."""
    totals: Counter[str] = Counter()
    by_scaffold: Counter[str] = Counter()

    def write(trajectories: list[Trajectory]) -> None:
        totals["written"] += save_trajectories(ctx.graph, trajectories)
        totals["trajectories"] += len(trajectories)
        totals["messages"] += sum(len(t.messages) for t in trajectories)
        totals["prompt_tokens"] += sum(t.prompt_tokens for t in trajectories)
        totals["completion_tokens"] += sum(t.completion_tokens for t in trajectories)
        by_scaffold.update(t.scaffold for t in trajectories)

    read = read_trajectories(params.path, params.format, params.spec_id, params.deliverables_dir, sink=write)
    return ImportTrajectoriesResult(
        files=read.files,
        imported_files=sum(1 for f in read.files if f.skipped is None),
        skipped_files=sum(1 for f in read.files if f.skipped is not None),
        ignored=read.ignored,
        trajectories=totals["trajectories"],
        written=totals["written"],
        by_scaffold=dict(by_scaffold),
        messages=totals["messages"],
        prompt_tokens=totals["prompt_tokens"],
        completion_tokens=totals["completion_tokens"],
        warnings=len(read.issues),
    )

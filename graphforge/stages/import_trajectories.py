"""Import trajectories written by other scaffolds: read them (loaders.trajectories), MERGE them by id.

Re-importing the same logs changes nothing. Each file's outcome is in ``files`` (imported N, or
skipped with the reason); ``trajectories == 0`` means the run imported nothing.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict

from graphforge.context import StageContext
from graphforge.store import save_trajectories
from loaders.trajectories import FileOutcome, TrajectoryFormat, read_trajectories


class ImportTrajectoriesParams(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    path: Path  # a log file, a folder searched recursively, or an OpenHands events/ folder
    format: TrajectoryFormat = TrajectoryFormat.AUTO
    spec_id: str | None = None  # the spec the trajectories attempt
    deliverables_dir: Path | None = None  # files attached to every imported trajectory


class ImportTrajectoriesResult(BaseModel):
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
    read = read_trajectories(params.path, params.format, params.spec_id, params.deliverables_dir)
    written = save_trajectories(ctx.graph, read.trajectories) if read.trajectories else 0
    by_scaffold: dict[str, int] = {}
    for t in read.trajectories:
        by_scaffold[t.scaffold] = by_scaffold.get(t.scaffold, 0) + 1
    return ImportTrajectoriesResult(
        files=read.files,
        imported_files=sum(1 for f in read.files if f.skipped is None),
        skipped_files=sum(1 for f in read.files if f.skipped is not None),
        ignored=read.ignored,
        trajectories=len(read.trajectories),
        written=written,
        by_scaffold=by_scaffold,
        messages=sum(len(t.messages) for t in read.trajectories),
        prompt_tokens=sum(t.prompt_tokens for t in read.trajectories),
        completion_tokens=sum(t.completion_tokens for t in read.trajectories),
        warnings=len(read.issues),
    )

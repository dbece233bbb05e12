"""Import agent trajectories from other scaffolds into graphforge's Trajectory model (and into Neo4j).

result = read_trajectories(Path("sessions/"), TrajectoryFormat.CODEX)
result.trajectories, [str(i) for i in result.issues]   # malformed records: reported with file and line
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from graphforge.context import StageContext
from graphforge.errors import SourceFormatError
from graphforge.models.trajectory import Trajectory
from graphforge.store import save_trajectories
from loaders.trajectories import claude_code, codex, openai_messages, openhands
from loaders.trajectories.base import ImportIssue, ParsedFile
from loaders.trajectories.deliverables import folder_deliverables

__all__ = [
    "ImportIssue",
    "LoadTrajectoriesParams",
    "LoadTrajectoriesResult",
    "ReadResult",
    "TrajectoryFormat",
    "load_trajectories",
    "read_trajectories",
]


class TrajectoryFormat(StrEnum):
    OPENAI = "openai"
    CODEX = "codex"
    OPENHANDS = "openhands"
    CLAUDE_CODE = "claude-code"


_PARSERS: dict[TrajectoryFormat, tuple[Callable[[Path, str | None], ParsedFile], tuple[str, ...]]] = {
    TrajectoryFormat.OPENAI: (openai_messages.parse, ("*.jsonl",)),
    TrajectoryFormat.CODEX: (codex.parse, ("*.jsonl",)),
    TrajectoryFormat.OPENHANDS: (openhands.parse, ("*.json",)),
    TrajectoryFormat.CLAUDE_CODE: (claude_code.parse, ("*.jsonl",)),
}


class ReadResult(BaseModel):
    files: int
    trajectories: list[Trajectory]
    issues: list[ImportIssue]


def _files(path: Path, patterns: tuple[str, ...]) -> list[Path]:
    if path.is_file():
        return [path]
    if path.is_dir():
        return sorted({p for pattern in patterns for p in path.rglob(pattern) if p.is_file()})
    raise SourceFormatError(path, "no such file or folder")


def read_trajectories(
    path: Path, fmt: TrajectoryFormat, spec_id: str | None = None, deliverables_dir: Path | None = None
) -> ReadResult:
    """Parse a file (or every matching file under a folder); bad records become issues, not errors.

    A file that cannot be read at all is an issue too when ``path`` is a folder (one bad log must
    not stop a batch); it raises SourceFormatError when it is the only file.
    """
    parse, patterns = _PARSERS[fmt]
    files = _files(path, patterns)
    extra = folder_deliverables(deliverables_dir) if deliverables_dir is not None else []
    trajectories: list[Trajectory] = []
    issues: list[ImportIssue] = []
    for file in files:
        try:
            parsed = parse(file, spec_id)
        except SourceFormatError as exc:
            if path.is_file():
                raise
            issues.append(ImportIssue(file=str(file), problem=exc.problem))
            continue
        issues.extend(parsed.issues)
        for t in parsed.trajectories:
            trajectories.append(
                t.model_copy(update={"deliverables": [*t.deliverables, *extra]}) if extra else t
            )
    seen: dict[str, str] = {}
    unique: list[Trajectory] = []
    for t in trajectories:
        if t.trajectory_id in seen:
            issues.append(
                ImportIssue(
                    file=t.source,
                    problem=f"duplicate trajectory id {t.trajectory_id} "
                    f"(also in {seen[t.trajectory_id]}); kept the first",
                )
            )
            continue
        seen[t.trajectory_id] = t.source
        unique.append(t)
    return ReadResult(files=len(files), trajectories=unique, issues=issues)


class LoadTrajectoriesParams(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    path: Path
    format: TrajectoryFormat
    spec_id: str | None = None
    deliverables_dir: Path | None = None


class LoadTrajectoriesResult(BaseModel):
    files: int
    trajectories: int
    written: int
    by_scaffold: dict[str, int]
    messages: int
    prompt_tokens: int
    completion_tokens: int
    issues: list[str]  # "file:line record: problem"


def load_trajectories(ctx: StageContext, params: LoadTrajectoriesParams) -> LoadTrajectoriesResult:
    """Read trajectories and MERGE them into Neo4j by trajectory id (re-imports change nothing)."""
    read = read_trajectories(params.path, params.format, params.spec_id, params.deliverables_dir)
    written = save_trajectories(ctx.graph, read.trajectories)
    by_scaffold: dict[str, int] = {}
    for t in read.trajectories:
        by_scaffold[t.scaffold] = by_scaffold.get(t.scaffold, 0) + 1
    return LoadTrajectoriesResult(
        files=read.files,
        trajectories=len(read.trajectories),
        written=written,
        by_scaffold=by_scaffold,
        messages=sum(len(t.messages) for t in read.trajectories),
        prompt_tokens=sum(t.prompt_tokens for t in read.trajectories),
        completion_tokens=sum(t.completion_tokens for t in read.trajectories),
        issues=[str(i) for i in read.issues],
    )

"""`graphforge load workspaces PARENT`: every sub-folder of PARENT is a workspace, loaded one after another.

One line per workspace as it finishes; a workspace that fails is recorded with its reason and the run goes on
(the command exits 1 at the end, naming the failures). With ``--shard i/n`` a process loads only the folders
whose workspace id hashes to i, so n processes on n machines share one graph; the files of one workspace are
never split, so each workspace is loaded, and resumed after a crash, by a single process.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Annotated

import typer
from pydantic import BaseModel
from rich.text import Text

from graphforge.cli.common import JsonOption, emit, progress, stdout
from graphforge.cli.load import (
    JobsOption,
    MaxFileMbOption,
    RetryInvalidOption,
    RuleRolesOption,
    TimeoutOption,
    max_file_bytes,
)
from graphforge.cli.sharding import ShardOption
from graphforge.errors import (
    ConfigError,
    GraphConnectionError,
    GraphforgeError,
    ServerError,
    SourceFormatError,
    StageError,
)

# Errors that would fail every workspace alike: stop at once instead of recording each.
_FATAL = (ConfigError, GraphConnectionError, ServerError)


class WorkspaceOutcome(BaseModel):
    folder: str  # the sub-folder's name under PARENT
    workspace_id: str
    loaded: bool
    error: str | None = None
    files_found: int = 0
    parsed: int = 0
    invalid: int = 0
    skipped_already_ingested: int = 0  # complete from an earlier run (resumed)
    spans_written: int = 0
    seconds: float = 0.0
    seed_id: str | None = None
    seed_source: str | None = None  # "user" (the manifest's, or chosen earlier) or "fit" (assigned by fit)
    seed_fit: float | None = None

    def line(self) -> str:
        if not self.loaded:
            return f"failed  {self.folder}  {self.workspace_id}: {self.error}"
        fit = f" {self.seed_fit:.3f}" if self.seed_fit is not None else ""
        seed = f", seed {self.seed_id} ({self.seed_source}{fit})" if self.seed_id else ""
        return (f"loaded  {self.folder}  {self.workspace_id}: {self.files_found} files, {self.parsed} parsed "
                f"({self.invalid} invalid), {self.skipped_already_ingested} already loaded, "
                f"{self.spans_written} spans, {self.seconds:.1f} s{seed}")


class LoadWorkspacesResult(BaseModel):
    parent: str
    shard: str | None
    folders: int  # sub-folders found under PARENT
    other_shards: int  # folders whose workspace id another shard owns (not loaded here)
    loaded: int
    failed: int
    workspaces: list[WorkspaceOutcome]


def workspace_folders(parent: Path) -> list[Path]:
    """The sub-folders of ``parent`` by name, hidden ones (``.git``, ``.cache``) left out."""
    if not parent.is_dir():
        raise SourceFormatError(parent, "not a folder (give the folder whose sub-folders are workspaces)")
    try:
        with os.scandir(parent) as entries:
            names = [e.name for e in entries if not e.name.startswith(".") and e.is_dir()]
    except OSError as exc:
        raise SourceFormatError(parent, f"cannot list the folder: {exc.strerror or exc}") from exc
    if not names:
        raise SourceFormatError(parent, "has no sub-folders; each sub-folder is one workspace (load a single "
                                        "folder with `graphforge load workspace DIR`)")
    return [parent / name for name in sorted(names)]


def load_workspaces_cmd(
    parent: Annotated[Path, typer.Argument(help="Folder whose sub-folders are workspaces (one each).")],
    jobs: JobsOption = None,
    timeout_s: TimeoutOption = 60.0,
    max_file_mb: MaxFileMbOption = None,
    retry_invalid: RetryInvalidOption = False,
    rule_roles: RuleRolesOption = False,
    shard: ShardOption = None,
    as_json: JsonOption = False,
) -> None:
    """Load every sub-folder of PARENT as a workspace (id, seed and roles from its manifest, if any).

    Resumable: a re-run skips the files already loaded. One line per workspace; a failed workspace is
    listed with its reason, the others still load, and the command then exits 1.
    """
    from graphforge.context import open_context
    from graphforge.sharding import parse_shard
    from graphforge.stages import load_workspace as stage
    from loaders.workspace import workspace_id_of

    part = parse_shard(shard)
    folders = workspace_folders(parent)
    ids = {folder: workspace_id_of(folder) for folder in folders}
    mine = [f for f in folders if part is None or part.owns(ids[f])]
    outcomes: list[WorkspaceOutcome] = []
    first_with_id: dict[str, Path] = {}
    with open_context() as ctx, progress() as bar:
        task = bar.add_task("workspaces", total=len(mine))
        for done, folder in enumerate(mine):
            wid = ids[folder]
            if wid in first_with_id:
                # Two folders under one id would overwrite each other's file list: load the first only.
                outcome = WorkspaceOutcome(folder=folder.name, workspace_id=wid, loaded=False, error=(
                    f"workspace id {wid!r} is also the id of folder {first_with_id[wid].name!r} (set a "
                    "distinct workspace.id in one of their manifests)"))
            else:
                first_with_id[wid] = folder

                def tick(n: int, total: int, path: str, name: str = folder.name) -> None:
                    bar.update(task, description=f"{name}: {n}/{total} {path[-30:]}")

                params = stage.LoadWorkspaceParams(
                    root=folder, workspace_id=wid, jobs=jobs, timeout_s=timeout_s,
                    max_file_bytes=max_file_bytes(max_file_mb),
                    retry_invalid=retry_invalid, use_llm_roles=not rule_roles)
                try:
                    result = stage.run(dataclasses.replace(ctx, progress=tick), params)
                except _FATAL:
                    raise
                except Exception as exc:  # noqa: BLE001 - one broken workspace must not stop the others
                    why = str(exc) if isinstance(exc, GraphforgeError) else f"{type(exc).__name__}: {exc}"
                    outcome = WorkspaceOutcome(folder=folder.name, workspace_id=wid, loaded=False,
                                               error=" ".join(why.split())[:500])
                else:
                    outcome = WorkspaceOutcome(
                        folder=folder.name, workspace_id=result.workspace_id, loaded=True,
                        files_found=result.files_found, parsed=result.parsed, invalid=len(result.invalid),
                        skipped_already_ingested=result.skipped_already_ingested,
                        spans_written=result.spans_written, seconds=result.seconds,
                        seed_id=result.seed_id, seed_source=result.seed_source, seed_fit=result.seed_fit)
            outcomes.append(outcome)
            bar.update(task, completed=done + 1)
            bar.console.print(Text(outcome.line(), style="green" if outcome.loaded else "yellow"),
                              soft_wrap=True)
    failed = [o for o in outcomes if not o.loaded]
    emit(LoadWorkspacesResult(parent=str(parent), shard=str(part) if part else None, folders=len(folders),
                              other_shards=len(folders) - len(mine), loaded=len(outcomes) - len(failed),
                              failed=len(failed), workspaces=outcomes),
         as_json, summary=_summary)
    if failed:
        named = "; ".join(f"{o.folder}: {o.error}" for o in failed[:3])
        more = f" (and {len(failed) - 3} more)" if len(failed) > 3 else ""
        raise StageError("load_workspaces", f"{len(failed)} of {len(outcomes)} workspaces failed to load: "
                                            f"{named}{more}")


def _summary(result: LoadWorkspacesResult) -> None:
    shard = f" (shard {result.shard}; {result.other_shards} folders belong to other shards)" \
        if result.shard else ""
    stdout.print(f"{result.loaded} workspaces loaded, {result.failed} failed, of {result.folders} folders "
                  f"under {result.parent}{shard}", soft_wrap=True)

"""`graphforge load trajectories ...` commands of the trajectories area."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from graphforge.cli.common import JsonOption, console, emit, load_app


@load_app.command("trajectories")
def load_trajectories_cmd(
    path: Annotated[Path, typer.Argument(help="A log file, or a folder searched recursively.")],
    fmt: Annotated[str, typer.Option("--format", help="openai | codex | openhands | claude-code")],
    spec: Annotated[str | None, typer.Option("--spec", help="Spec id the trajectories attempt.")] = None,
    deliverables: Annotated[
        Path | None,
        typer.Option(
            "--deliverables", help="Folder whose files are the deliverables of the imported run(s)."
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Import OpenAI-messages JSONL, Codex CLI sessions, OpenHands trajectories or Claude Code transcripts."""
    from graphforge.context import open_context
    from loaders.trajectories import LoadTrajectoriesParams, TrajectoryFormat, load_trajectories

    try:
        kind = TrajectoryFormat(fmt)
    except ValueError as exc:
        raise typer.BadParameter(
            f"unknown format {fmt!r}; use one of {', '.join(f.value for f in TrajectoryFormat)}",
            param_hint="--format",
        ) from exc
    params = LoadTrajectoriesParams(path=path, format=kind, spec_id=spec, deliverables_dir=deliverables)
    with open_context() as ctx:
        result = load_trajectories(ctx, params)
    if not as_json:
        for issue in result.issues[:50]:
            console.print(f"[yellow]warning[/yellow] {issue}", highlight=False)
        if len(result.issues) > 50:
            console.print(
                f"[yellow]... {len(result.issues) - 50} more warnings (use --json for all)[/yellow]"
            )
    emit(result, as_json, title="trajectories imported")

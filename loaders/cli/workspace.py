"""`graphforge load workspace DIR`: ingest a folder of files as a workspace (and the sample generator)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from graphforge.cli.common import JsonOption, emit, load_app, progress


@load_app.command("workspace")
def load_workspace_cmd(
    root: Annotated[Path, typer.Argument(help="Workspace folder to ingest.")],
    seed: Annotated[str | None, typer.Option("--seed", help="Seed id this workspace serves.")] = None,
    manifest: Annotated[
        Path | None,
        typer.Option(
            "--manifest",
            help="Manifest (JSON/YAML) with per-file role, source URL, license; default: manifest.* in DIR.",
        ),
    ] = None,
    workspace_id: Annotated[
        str | None,
        typer.Option(
            "--workspace-id", help="Workspace id (default: manifest, else derived from the folder path)."
        ),
    ] = None,
    jobs: Annotated[
        int | None, typer.Option("--jobs", "-j", min=1, help="Parser processes (default: CPUs).")
    ] = None,
    timeout_s: Annotated[float, typer.Option("--timeout", help="Per-file parse timeout in seconds.")] = 60.0,
    max_file_mb: Annotated[
        float | None,
        typer.Option(
            "--max-file-mb", help="Files above this size are recorded invalid without parsing (default 100)."
        ),
    ] = None,
    retry_invalid: Annotated[
        bool, typer.Option("--retry-invalid", help="Re-parse files an earlier run recorded as invalid.")
    ] = False,
    rule_roles: Annotated[
        bool,
        typer.Option(
            "--rule-roles", help="Assign missing roles by path rules even when a chat model is configured."
        ),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Hash, deduplicate, parse (in parallel, with timeouts) and store a workspace's files and spans."""
    from graphforge.context import open_context
    from loaders.workspace import load_workspace

    with open_context() as ctx, progress() as bar:
        task = bar.add_task("parsing", total=None)

        def tick(done: int, total: int, path: str) -> None:
            bar.update(task, completed=done, total=total, description=f"parsing {path[-40:]}")

        result = load_workspace(
            ctx,
            root,
            manifest=manifest,
            workspace_id=workspace_id,
            seed_id=seed,
            jobs=jobs,
            timeout_s=timeout_s,
            max_file_bytes=int(max_file_mb * 1024 * 1024) if max_file_mb else None,
            retry_invalid=retry_invalid,
            use_llm_roles=not rule_roles,
            progress=tick,
        )
    emit(result, as_json, "Workspace loaded")

"""CLI commands of the rollouts area (registered on the groups in graphforge.cli.common)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from graphforge.cli.common import JsonOption, emit, working
from graphforge.cli.listing import require_known
from graphforge.cli.sharding import ShardOption
from graphforge.cli.status import note_if_idle


def rollout_run_cmd(
    spec: Annotated[
        list[str] | None, typer.Option("--spec", help="Spec id to attempt, e.g. 'recon-q3@v1' (repeatable; "
                                                      "default: every current spec).")
    ] = None,
    n: Annotated[int, typer.Option("--n", min=1, help="Samples (K) per spec.")] = 1,
    concurrency: Annotated[int | None, typer.Option(
        "--concurrency", min=1, help="Rollouts at once (default: GRAPHFORGE_LLM_CONCURRENCY).")] = None,
    max_steps: Annotated[int, typer.Option(min=1, help="Assistant turns before a rollout is stopped.")] = 30,
    temperature: Annotated[
        float | None, typer.Option(help="Sampling temperature (default: server's).")
    ] = None,
    tool_timeout: Annotated[float, typer.Option(help="Wall-time limit of one run_python call (s).")] = 60.0,
    memory_mb: Annotated[int, typer.Option(help="Memory limit of one run_python call (MiB).")] = 1024,
    workspace: Annotated[
        Path | None,
        typer.Option(exists=True, file_okay=False, help="Workspace folder (default: the root in the graph)."),
    ] = None,
    force: Annotated[bool, typer.Option(help="Re-run samples that are already materialised.")] = False,
    shard: ShardOption = None,
    as_json: JsonOption = False,
) -> None:
    """Run the built-in agent loop (OpenAI-compatible chat API from GRAPHFORGE_LLM_*) on compiled specs."""
    from graphforge.context import open_context
    from graphforge.sharding import parse_shard
    from graphforge.stages import run_rollouts

    params = run_rollouts.RunRolloutsParams(
        spec_ids=spec or [],
        n=n,
        concurrency=concurrency,
        max_steps=max_steps,
        temperature=temperature,
        tool_timeout_s=tool_timeout,
        memory_mb=memory_mb,
        workspace_dir=workspace,
        force=force,
        shard=parse_shard(shard),
    )
    what = ", ".join(spec) if spec else "every current spec"
    if shard is not None:
        what += f" (shard {shard})"
    with open_context() as ctx, working(f"rollouts of {what}"):
        require_known(ctx.graph, "spec", spec, "--spec")
        result = run_rollouts.run(ctx, params)
        note_if_idle(ctx.graph, "rollout run")
    emit(result, as_json, title=f"Rollouts of {what}")

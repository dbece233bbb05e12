"""CLI commands of the evidence_specs area (registered on the groups in graphforge.cli.common)."""

from __future__ import annotations

from typing import Annotated

import typer

from graphforge.cli.common import JsonOption, emit, working
from graphforge.cli.listing import require_known
from graphforge.cli.sharding import ShardOption
from graphforge.cli.status import note_if_idle
from graphforge.specs.families import FAMILIES

WorkspaceOption = Annotated[str | None, typer.Option("--workspace", help="One workspace id (default: all).")]


def evidence_build_cmd(workspace: WorkspaceOption = None,
                       extractor: Annotated[str, typer.Option(help="auto | rule-based | llm")] = "auto",
                       shard: ShardOption = None,
                       as_json: JsonOption = False) -> None:
    """Extract facts from workspace spans and link them (compare, reconcile, derive, interpret)."""
    from graphforge.context import open_context
    from graphforge.sharding import parse_shard
    from graphforge.stages import build_evidence

    params = build_evidence.BuildEvidenceParams(workspace_id=workspace, extractor=extractor,
                                                shard=parse_shard(shard))
    with open_context() as ctx, working("extracting facts"):
        require_known(ctx.graph, "workspace", workspace, "--workspace")
        result = build_evidence.run(ctx, params)
        note_if_idle(ctx.graph, "evidence build")
    emit(result, as_json, "evidence build")


def _family_names() -> str:
    return ", ".join(FAMILIES.names())


def specs_compile_cmd(workspace: WorkspaceOption = None,
                      compiler: Annotated[str, typer.Option(help="auto | template | llm")] = "auto",
                      family: Annotated[str | None, typer.Option(
                          "--family", metavar="NAME",
                          help=f"Compile only this task family: {_family_names()}.")] = None,
                      all_families: Annotated[bool, typer.Option(
                          "--all-families/--best-family",
                          help="One spec per family the evidence supports (default), or only the family "
                               "that fits the workspace's seed best.")] = True,
                      shard: ShardOption = None,
                      as_json: JsonOption = False) -> None:
    """Compile each workspace's evidence graph into anchored task specs (one per supported family)."""
    from graphforge.context import open_context
    from graphforge.errors import ConfigError
    from graphforge.seeds import fit as seed_fit
    from graphforge.sharding import parse_shard
    from graphforge.stages import compile_specs

    if family is not None and family not in FAMILIES:
        raise ConfigError(f"--family {family!r} is not a task family; known: {_family_names()}")
    params = compile_specs.CompileSpecsParams(workspace_id=workspace, compiler=compiler, family=family,
                                              all_families=all_families and family is None,
                                              shard=parse_shard(shard))
    with open_context() as ctx, working("compiling specs"):
        require_known(ctx.graph, "workspace", workspace, "--workspace")
        result = compile_specs.run(ctx, params)
        note_if_idle(ctx.graph, "specs compile")
        # A statement names the seed's occupation: say so when the seed does not fit the folder.
        misfits = seed_fit.fit_warnings(ctx.graph, sorted(result.supported))
    emit(result, as_json, "specs compile")
    for line in misfits:
        typer.echo(f"warning: {line}", err=True)


def specs_show_cmd(
    spec_id: str,
    agent_view: Annotated[
        bool,
        typer.Option("--agent-view", help="Only what the working agent sees (no criteria, anchors, roles)."),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Print a saved spec (judge view, with criteria and anchors) or the agent's view of it."""
    from graphforge.context import open_context
    from graphforge.stores import specs as specs_store

    with open_context() as ctx:
        require_known(ctx.graph, "spec", spec_id, "SPEC_ID")
        result = specs_store.agent_view_from_graph(ctx.graph, spec_id) if agent_view else \
            specs_store.load_spec(ctx.graph, spec_id)
    if as_json:
        emit(result, True)
    else:
        # Printed as is: a console would wrap long strings at the terminal width and break the JSON.
        typer.echo(result.model_dump_json(indent=2))

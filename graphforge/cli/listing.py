"""`graphforge list specs|seeds|workspaces|trajectories|exports|benchmarks` and the unknown-id checks.

Each listing is one query under cypher/list/ with optional filters. Human output is a table whose
cells wrap (ids and reasons are never cut); --json prints one object with the rows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import Annotated, Any

import typer
from rich.table import Table

from graphforge import cypher
from graphforge.cli.common import JsonOption, stdout
from graphforge.errors import ConfigError
from graphforge.graph import Graph
from graphforge.models.trajectory import TrajectoryStatus

LIST_SPECS = cypher.load("list/list_specs")
LIST_SEEDS = cypher.load("list/list_seeds")
LIST_WORKSPACES = cypher.load("list/list_workspaces")
LIST_TRAJECTORIES = cypher.load("list/list_trajectories")
LIST_EXPORTS = cypher.load("list/list_exports")
LIST_BENCHMARKS = cypher.load("list/list_benchmarks")



class ExportKind(StrEnum):
    SFT = "sft"
    RFT = "rft"
    RUBRICS = "rubrics"


# -- reading --------------------------------------------------------------------------------------------


def specs(graph: Graph, *, ids: Sequence[str] | None = None, workspace_id: str | None = None,
          seed_id: str | None = None, current_only: bool = False) -> list[dict[str, Any]]:
    return graph.read_dicts(LIST_SPECS, ids=list(ids) if ids else None, workspace_id=workspace_id,
                            seed_id=seed_id, current_only=current_only)


def seeds(graph: Graph, *, ids: Sequence[str] | None = None, selected_only: bool = False,
          soc_code: str | None = None, pattern: str | None = None) -> list[dict[str, Any]]:
    return graph.read_dicts(LIST_SEEDS, ids=list(ids) if ids else None, selected_only=selected_only,
                            soc_code=soc_code, pattern=pattern)


def workspaces(graph: Graph, *, ids: Sequence[str] | None = None,
               seed_id: str | None = None) -> list[dict[str, Any]]:
    return graph.read_dicts(LIST_WORKSPACES, ids=list(ids) if ids else None, seed_id=seed_id)


def trajectories(graph: Graph, *, ids: Sequence[str] | None = None, spec_id: str | None = None,
                 status: str | None = None, model: str | None = None) -> list[dict[str, Any]]:
    return graph.read_dicts(LIST_TRAJECTORIES, ids=list(ids) if ids else None, spec_id=spec_id,
                            status=status, model=model)


def exports(graph: Graph, *, ids: Sequence[str] | None = None,
            kind: str | None = None) -> list[dict[str, Any]]:
    return graph.read_dicts(LIST_EXPORTS, ids=list(ids) if ids else None, kind=kind)


def benchmarks(graph: Graph, *, ids: Sequence[str] | None = None) -> list[dict[str, Any]]:
    return graph.read_dicts(LIST_BENCHMARKS, ids=list(ids) if ids else None)


# -- unknown ids ----------------------------------------------------------------------------------------

_ID_FIELD = {"spec": "spec_id", "seed": "seed_id", "workspace": "workspace_id",
             "trajectory": "trajectory_id", "export": "export_id", "benchmark": "name"}
_PLURAL = {"spec": "specs", "seed": "seeds", "workspace": "workspaces", "trajectory": "trajectories",
           "export": "exports", "benchmark": "benchmarks"}


def require_known(graph: Graph, kind: str, ids: str | Sequence[str] | None, option: str) -> None:
    """Raise a one-line ConfigError when an id given on the command line is not in the graph."""
    if ids is None or ids == [] or ids == ():
        return
    wanted = [ids] if isinstance(ids, str) else list(ids)
    readers: dict[str, Callable[..., list[dict[str, Any]]]] = {
        "spec": specs, "seed": seeds, "workspace": workspaces, "trajectory": trajectories, "export": exports,
        "benchmark": benchmarks}
    reader = readers[kind]
    found = {row[_ID_FIELD[kind]] for row in reader(graph, ids=wanted)}
    missing = [i for i in wanted if i not in found]
    if missing:
        names = ", ".join(repr(m) for m in missing)
        raise ConfigError(f"{option}: no {kind} {names} in the graph; "
                          f"`graphforge list {_PLURAL[kind]}` shows the ones there are")


# -- commands -------------------------------------------------------------------------------------------


WideOption = Annotated[bool, typer.Option("--wide", help="One line per row at any width (no wrapping); "
                                                          "the default when output is not a terminal.")]


def _print(rows: list[dict[str, Any]], columns: Sequence[str], title: str, as_json: bool, key: str,
           wide: bool = False) -> None:
    if as_json:
        import json

        typer.echo(json.dumps({key: rows, "count": len(rows)}, ensure_ascii=False, default=str))
        return
    cells = [[_cell(row.get(c)) for c in columns] for row in rows]
    table = Table(title=f"{title} ({len(rows)})", title_justify="left")
    for i, column in enumerate(columns):
        # Ids keep their full width; other text wraps at words. Nothing ends in an ellipsis.
        longest = max([len(column)] + [len(r[i]) for r in cells])
        is_id = column.endswith("_id") or column in ("root", "out_dir", "name", "source_dir")
        table.add_column(column, overflow="fold", min_width=longest if is_id else None, no_wrap=wide)
    for row_cells in cells:
        table.add_row(*row_cells)
    if wide or not stdout.is_terminal:
        # Piped or asked for: one line per row, nothing wrapped or cropped (grep-able).
        from rich.console import Console

        Console(width=100_000, soft_wrap=True).print(table, crop=False)
    else:
        stdout.print(table, crop=False)


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


def list_specs_cmd(
    workspace: Annotated[
        str | None, typer.Option("--workspace", help="Only specs of this workspace id.")
    ] = None,
    seed: Annotated[str | None, typer.Option("--seed", help="Only specs of this seed id.")] = None,
    current: Annotated[
        bool, typer.Option("--current", help="Only current specs (no later revision).")
    ] = False,
    wide: WideOption = False,
    as_json: JsonOption = False,
) -> None:
    """Task specs: version, current or revised, workspace, seed, criteria, trajectories, admitted."""
    from graphforge.context import open_context

    with open_context() as ctx:
        require_known(ctx.graph, "workspace", workspace, "--workspace")
        require_known(ctx.graph, "seed", seed, "--seed")
        rows = specs(ctx.graph, workspace_id=workspace, seed_id=seed, current_only=current)
    _print(rows, ("spec_id", "version", "current", "workspace_id", "seed_id", "criteria", "trajectories",
                  "admitted"), "Specs", as_json, "specs", wide)


def list_seeds_cmd(
    selected: Annotated[bool, typer.Option("--selected", help="Only selected seeds, by rank.")] = False,
    occupation: Annotated[
        str | None, typer.Option("--occupation", help="Only seeds for this O*NET-SOC code, e.g. 13-2011.00.")
    ] = None,
    pattern: Annotated[
        str | None, typer.Option("--pattern", help="Only seeds of this execution pattern.")
    ] = None,
    wide: WideOption = False,
    as_json: JsonOption = False,
) -> None:
    """Seeds: rank, occupation, sector, task type, pattern, input family, workspaces."""
    from graphforge.context import open_context

    with open_context() as ctx:
        rows = seeds(ctx.graph, selected_only=selected, soc_code=occupation, pattern=pattern)
        if occupation and not rows and not seeds(ctx.graph, soc_code=occupation):
            raise ConfigError(f"--occupation: no seed for O*NET-SOC code {occupation!r} in the graph")
        if pattern and not rows and not seeds(ctx.graph, pattern=pattern):
            raise ConfigError(f"--pattern: no seed with execution pattern {pattern!r} in the graph")
    _print(rows, ("seed_id", "selection_rank", "soc_code", "occupation", "sectors", "task_type", "pattern",
                  "input_family", "workspaces"), "Seeds", as_json, "seeds", wide)


def list_workspaces_cmd(
    seed: Annotated[str | None, typer.Option("--seed", help="Only workspaces of this seed id.")] = None,
    wide: WideOption = False,
    as_json: JsonOption = False,
) -> None:
    """Workspaces: seed, files (invalid ones too), spans, facts, specs, root folder."""
    from graphforge.context import open_context

    with open_context() as ctx:
        require_known(ctx.graph, "seed", seed, "--seed")
        rows = workspaces(ctx.graph, seed_id=seed)
    _print(rows, ("workspace_id", "seed_id", "files", "invalid_files", "spans", "facts", "specs", "root"),
           "Workspaces", as_json, "workspaces", wide)


def list_trajectories_cmd(
    spec: Annotated[str | None, typer.Option("--spec", help="Only trajectories of this spec id.")] = None,
    status: Annotated[
        TrajectoryStatus | None, typer.Option("--status", help="Only trajectories with this status.")
    ] = None,
    model: Annotated[str | None, typer.Option("--model", help="Only trajectories of this model.")] = None,
    wide: WideOption = False,
    as_json: JsonOption = False,
) -> None:
    """Trajectories: spec, scaffold, model, status and its reason, steps, tokens, best Q."""
    from graphforge.context import open_context

    with open_context() as ctx:
        require_known(ctx.graph, "spec", spec, "--spec")
        rows = trajectories(ctx.graph, spec_id=spec, status=status.value if status else None, model=model)
        if model and not rows and not trajectories(ctx.graph, model=model):
            raise ConfigError(f"--model: no trajectory of model {model!r} in the graph")
    _print(rows, ("trajectory_id", "spec_id", "model", "status", "status_reason", "steps", "tokens",
                  "q_anchored"), "Trajectories", as_json, "trajectories", wide)


def list_exports_cmd(
    kind: Annotated[ExportKind | None, typer.Option("--kind", help="Only exports of this kind.")] = None,
    wide: WideOption = False,
    as_json: JsonOption = False,
) -> None:
    """Exports: kind, arm, rows, audit, override, folder."""
    from graphforge.context import open_context

    with open_context() as ctx:
        rows = exports(ctx.graph, kind=kind.value if kind else None)
    _print(rows, ("export_id", "kind", "arm", "rows", "audit_id", "override", "out_dir", "last_exported_at"),
           "Exports", as_json, "exports", wide)


def list_benchmarks_cmd(wide: WideOption = False, as_json: JsonOption = False) -> None:
    """Benchmarks loaded with `load benchmark`: tasks, reference files, source folder."""
    from graphforge.context import open_context

    with open_context() as ctx:
        rows = benchmarks(ctx.graph)
    _print(rows, ("name", "task_count", "file_count", "source_dir"), "Benchmarks", as_json, "benchmarks",
           wide)

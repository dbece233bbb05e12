"""`graphforge list specs|seeds|workspaces|trajectories|exports|benchmarks` and the unknown-id checks.

Each listing is one query under cypher/list/ with optional filters. Human output is a table whose
cells wrap (ids and reasons are never cut); --json prints one object with the rows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import Annotated, Any

import typer

from graphforge.cli.common import JsonOption, stdout
from graphforge.cli.tables import Col, fit_table, wide_table
from graphforge.errors import ConfigError
from graphforge.graphdb import cypher
from graphforge.graphdb.graph import Graph
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


# Columns of each listing in a terminal; `keep` orders what is dropped first when the width is short
# (100 and more: never). --json keeps every field under its own name.
SPEC_COLUMNS = (Col("spec_id", "spec id", "id", 100), Col("version", "v", "num", 60),
                Col("current", "current", "num", 70), Col("workspace_id", "workspace", "id", 50),
                Col("seed_id", "seed", "id", 20), Col("criteria", "criteria", "num", 40),
                Col("trajectories", "rollouts", "num", 45), Col("admitted", "admitted", "num", 45))
SEED_COLUMNS = (Col("seed_id", "seed id", "id", 100), Col("selection_rank", "rank", "num", 60),
                Col("soc_code", "O*NET-SOC", "id", 25), Col("occupation", "occupation", "text", 90),
                Col("sectors", "sectors", "text", 20), Col("task_type", "task type", "text", 55),
                Col("pattern", "pattern", "text", 80), Col("input_family", "input family", "text", 70),
                Col("workspaces", "workspaces", "num", 40))
WORKSPACE_COLUMNS = (Col("workspace_id", "workspace id", "id", 100), Col("seed_id", "seed", "id", 25),
                     Col("files", "files", "num", 80), Col("invalid_files", "invalid files", "num", 75),
                     Col("spans", "spans", "num", 60), Col("facts", "facts", "num", 70),
                     Col("specs", "specs", "num", 65), Col("root", "folder", "path", 30))
TRAJECTORY_COLUMNS = (Col("trajectory_id", "trajectory id", "id", 100), Col("spec_id", "spec", "id", 60),
                      Col("model", "model", "text", 50), Col("status", "status", "text", 90),
                      Col("status_reason", "reason", "text", 70), Col("steps", "steps", "num", 30),
                      Col("tokens", "tokens", "num", 20), Col("q_anchored", "Q anchored", "num", 80))
EXPORT_COLUMNS = (Col("export_id", "export id", "id", 100), Col("kind", "kind", "text", 90),
                  Col("arm", "arm", "text", 80), Col("rows", "rows", "num", 85),
                  Col("audit_id", "audit", "id", 40), Col("override", "override", "text", 50),
                  Col("out_dir", "folder", "path", 60), Col("last_exported_at", "exported", "time", 30))
BENCHMARK_COLUMNS = (Col("name", "name", "id", 100), Col("task_count", "tasks", "num", 80),
                     Col("file_count", "files", "num", 70), Col("source_dir", "folder", "path", 50))


WideOption = Annotated[bool, typer.Option("--wide", help="One line per row at any width (no wrapping); "
                                                          "the default when output is not a terminal.")]


def _print(rows: list[dict[str, Any]], columns: Sequence[Col], title: str, as_json: bool, key: str,
           wide: bool = False) -> None:
    if as_json:
        import json

        typer.echo(json.dumps({key: rows, "count": len(rows)}, ensure_ascii=False, default=str))
        return
    heading = f"{title} ({len(rows)})"
    if wide or not stdout.is_terminal:
        # Piped or asked for: one line per row, nothing wrapped or cropped (grep-able).
        from rich.console import Console

        Console(width=100_000, soft_wrap=True).print(wide_table(rows, columns, heading), crop=False)
        return
    # A terminal: fit its width; cells wrap at words, never inside one (see graphforge.cli.tables).
    fitted = fit_table(rows, columns, stdout.width, heading)
    stdout.print(fitted.table)
    note = fitted.footnote(stdout.width)
    if note:
        stdout.print(note, style="dim", markup=False, highlight=False)


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
    _print(rows, SPEC_COLUMNS, "Specs", as_json, "specs", wide)


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
    _print(rows, SEED_COLUMNS, "Seeds", as_json, "seeds", wide)


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
    _print(rows, WORKSPACE_COLUMNS, "Workspaces", as_json, "workspaces", wide)


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
    _print(rows, TRAJECTORY_COLUMNS, "Trajectories", as_json, "trajectories", wide)


def list_exports_cmd(
    kind: Annotated[ExportKind | None, typer.Option("--kind", help="Only exports of this kind.")] = None,
    wide: WideOption = False,
    as_json: JsonOption = False,
) -> None:
    """Exports: kind, arm, rows, audit, override, folder."""
    from graphforge.context import open_context

    with open_context() as ctx:
        rows = exports(ctx.graph, kind=kind.value if kind else None)
    _print(rows, EXPORT_COLUMNS, "Exports", as_json, "exports", wide)


def list_benchmarks_cmd(wide: WideOption = False, as_json: JsonOption = False) -> None:
    """Benchmarks loaded with `load benchmark`: tasks, reference files, source folder."""
    from graphforge.context import open_context

    with open_context() as ctx:
        rows = benchmarks(ctx.graph)
    _print(rows, BENCHMARK_COLUMNS, "Benchmarks", as_json, "benchmarks", wide)

"""`graphforge project new|list|use|show`: graphs kept apart, each its own managed Neo4j (see
graphforge.graphdb.projects); registered by cli.main."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from pydantic import BaseModel

from graphforge.cli.common import JsonOption, emit, say, stdout
from graphforge.cli.tables import Col, fit_table, wide_table

NameArg = Annotated[str, typer.Argument(help="Project name: lowercase letters, digits, '-' or '_'.")]


class ProjectInfo(BaseModel):
    name: str
    current: bool
    managed: bool
    bolt_uri: str
    browser_url: str | None
    server_home: str | None
    running: bool | None  # None: an external Neo4j (NEO4J_URI), not checked here
    selected_by: str | None = None  # GRAPHFORGE_PROJECT, the state file, or default


def _info(name: str, current: str, selected_by: str | None = None) -> ProjectInfo:
    from graphforge.graphdb import server
    from graphforge.settings import project_settings

    settings = project_settings(name)
    if not settings.managed:
        return ProjectInfo(name=name, current=name == current, managed=False,
                           bolt_uri=server.redact_uri(settings.neo4j_uri or ""), browser_url=None,
                           server_home=None, running=None, selected_by=selected_by)
    managed = server.ManagedServer(settings)
    return ProjectInfo(name=name, current=name == current, managed=True, bolt_uri=managed.bolt_uri,
                       browser_url=managed.browser_url, server_home=str(managed.home),
                       running=managed.pid() is not None, selected_by=selected_by)


def _base() -> Any:
    """Settings of the default project: where projects live and which ports new ones count up from."""
    from graphforge.graphdb import projects
    from graphforge.settings import GraphforgeSettings

    return GraphforgeSettings(project=projects.DEFAULT)


def _current() -> tuple[str, str]:
    from graphforge.settings import GraphforgeSettings

    settings = GraphforgeSettings()
    return settings.project_name, settings.project_source


def new_cmd(name: NameArg,
            use: Annotated[bool, typer.Option("--use", help="Make it the current project too.")] = False,
            bolt_port: Annotated[int | None, typer.Option("--bolt-port", min=1, max=65535,
                                                          help="Bolt port (default: the next free one).")]
            = None,
            http_port: Annotated[int | None, typer.Option("--http-port", min=1, max=65535,
                                                          help="HTTP port (default: the next free one).")]
            = None,
            as_json: JsonOption = False) -> None:
    """Create a project: its own Neo4j home and ports (recorded; no server is started)."""
    from graphforge.graphdb import projects

    base = _base()
    record = projects.create(base.home, name, base.listen_address, base.bolt_port, base.http_port,
                             bolt_port, http_port)
    if use:
        projects.write_current(base.home, name)
    info = _info(name, name if use else _current()[0])
    if as_json:
        emit(info, True)
        return
    say(f"created project {name}: Bolt port {record.bolt_port}, HTTP port {record.http_port}")
    say(f"  home: {info.server_home}")
    if use:
        say(f"  current project is now {name}; start its Neo4j with `graphforge db start`")
    else:
        say(f"  switch to it with `graphforge project use {name}` (or GRAPHFORGE_PROJECT={name} for one "
            "command), then `graphforge db start`")


def list_cmd(as_json: JsonOption = False) -> None:
    """Every project, the current one marked with *."""
    from graphforge.graphdb import projects

    base = _base()
    current, _ = _current()
    names = [projects.DEFAULT, *(r.name for r in projects.records(base.home))]
    infos = [_info(n, current) for n in names]
    if as_json:
        emit({"current": current, "projects": [i.model_dump(mode="json") for i in infos]}, True)
        return
    rows = [{"mark": "*" if i.current else "", "name": i.name, "bolt_uri": i.bolt_uri,
             "running": "external" if i.running is None else ("yes" if i.running else "no"),
             "home": i.server_home or ""} for i in infos]
    columns = [Col("mark", " ", "id", 100), Col("name", "project", "id", 100),
               Col("bolt_uri", "Bolt", "id", 90), Col("running", "running", "text", 80),
               Col("home", "Neo4j home", "path", 40)]
    if stdout.is_terminal:
        stdout.print(fit_table(rows, columns, stdout.width, f"Projects ({len(rows)})").table)
    else:
        from rich.console import Console

        Console(width=100_000, soft_wrap=True).print(wide_table(rows, columns, f"Projects ({len(rows)})"),
                                                     crop=False)


def use_cmd(name: NameArg, as_json: JsonOption = False) -> None:
    """Make NAME the current project (recorded in <home>/state.json; GRAPHFORGE_PROJECT overrides it)."""
    import os

    from graphforge.graphdb import projects

    base = _base()
    if not projects.exists(base.home, projects.check_name(name)):
        projects.read_record(base.home, name)  # raises the one-line "no project ... create it with" error
    path = projects.write_current(base.home, name)
    overridden = os.environ.get("GRAPHFORGE_PROJECT")
    if as_json:
        emit({"current_project": name, "state_file": str(path), "overridden_by_env": overridden}, True)
        return
    info = _info(name, name)
    say(f"current project: {name} ({info.bolt_uri}; "
        f"{'running' if info.running else 'external' if info.running is None else 'not running'})")
    if overridden and overridden != name:
        typer.echo(f"note: GRAPHFORGE_PROJECT={overridden} is set in this shell and wins until you unset it",
                   err=True)


def show_cmd(name: Annotated[str | None, typer.Argument(help="A project (default: the current one).")] = None,
             as_json: JsonOption = False) -> None:
    """Where a project's graph lives: its Bolt URI, Browser URL, Neo4j home, and whether it runs."""
    current, source = _current()
    info = _info(name or current, current, source if (name or current) == current else None)
    emit(info, as_json, f"Project {info.name}")

"""`graphforge db ...`: the managed server's lifecycle, migrations, counts."""

from __future__ import annotations

from typing import Annotated

import typer
from pydantic import BaseModel

from graphforge.cli.common import JsonOption, emit, working


class DbStatus(BaseModel):
    project: str
    running: bool
    managed: bool
    bolt_uri: str
    browser_url: str | None
    version: str | None
    edition: str | None
    database: str
    pid: int | None = None
    home: str | None = None
    user: str | None = None
    password: str | None = None


def _status(show_password: bool) -> DbStatus:
    from graphforge.graphdb import chores, server
    from graphforge.graphdb.graph import Graph
    from graphforge.settings import GraphforgeSettings

    settings = GraphforgeSettings()
    if settings.managed:
        managed = server.ManagedServer(settings)
        st = managed.status()
        status = DbStatus(project=settings.project_name, running=st.running, managed=True, bolt_uri=st.uri,
                          browser_url=st.browser_url,
                          version=st.version, edition=st.edition, database="neo4j", pid=st.pid,
                          home=st.home, user="neo4j")
        if show_password and managed.credentials.exists():
            status.password = managed.password()
        return status
    info = server.resolve(settings, start=False)
    driver = server.open_driver(info)
    try:
        component = chores.server_component(Graph(driver, info.database))
    finally:
        driver.close()
    return DbStatus(
        project=settings.project_name,
        running=True,
        managed=False,
        bolt_uri=info.uri,
        browser_url=None,
        version=component.version,
        edition=component.edition,
        database=info.database,
        user=info.user,
        password=info.password if show_password else None,
    )


def start_cmd(as_json: JsonOption = False) -> None:
    """Fetch (first use), configure and start the project-managed Neo4j; a no-op when it runs."""
    from graphforge.errors import ConfigError
    from graphforge.graphdb import server
    from graphforge.settings import GraphforgeSettings

    settings = GraphforgeSettings()
    if not settings.managed:
        shown = server.redact_uri(settings.neo4j_uri or "")
        raise ConfigError(f"NEO4J_URI is set ({shown}); the managed server is not used")
    with working("starting Neo4j (the first start downloads it)"):
        server.ManagedServer(settings).start()
    emit(_status(False), as_json, "Neo4j started")


def stop_cmd(as_json: JsonOption = False) -> None:
    """Stop the project-managed Neo4j cleanly."""
    from graphforge.graphdb import server
    from graphforge.settings import GraphforgeSettings

    stopped = server.ManagedServer(GraphforgeSettings()).stop()
    emit({"stopped": stopped, "was_running": stopped}, as_json)


def status_cmd(
    as_json: JsonOption = False,
    show_password: Annotated[
        bool, typer.Option("--show-password", help="Include the login password.")
    ] = False,
) -> None:
    """Server version, Bolt URI and Browser URL (the password only with --show-password)."""
    emit(_status(show_password), as_json, "Neo4j")


def migrate_cmd(as_json: JsonOption = False) -> None:
    """Apply pending schema migrations from schema/ in order (no-op when none is pending)."""
    from graphforge.context import open_context
    from graphforge.graphdb import migrations

    with open_context(migrate=False) as ctx:
        result = migrations.migrate(ctx.graph)
    emit(result, as_json, "Migrations")


def counts_cmd(as_json: JsonOption = False) -> None:
    """Nodes per label and relationships per type."""
    from graphforge.context import open_context
    from graphforge.graphdb import chores

    with open_context() as ctx:
        result = chores.counts(ctx.graph)
    emit(result, as_json, "Graph counts")


def reset_cmd(yes: Annotated[bool, typer.Option("--yes", help="Confirm deleting every node.")] = False,
              as_json: JsonOption = False) -> None:
    """Delete all data (schema and migration records stay)."""
    from graphforge.context import open_context
    from graphforge.errors import ConfigError
    from graphforge.graphdb import chores

    if not yes:
        raise ConfigError("`db reset` deletes every node; pass --yes to confirm")
    with open_context() as ctx:
        deleted = chores.delete_data(ctx.graph)
    emit({"deleted_nodes": deleted}, as_json)

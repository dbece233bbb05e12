"""The StageContext every stage receives, and how the CLI and tests build one."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from graphforge.errors import GraphConnectionError
from graphforge.graphdb import migrations, server
from graphforge.graphdb.graph import Graph
from graphforge.settings import GraphforgeSettings

Progress = Callable[[int, int, str], None]  # (done, total, current item): a stage's long loop reports here



@dataclass(frozen=True)
class StageContext:
    settings: GraphforgeSettings
    graph: Graph
    run_id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    out_dir: Path = Path("out")
    progress: Progress | None = None  # set by the CLI for a progress bar; stages never require it


@contextmanager
def open_context(settings: GraphforgeSettings | None = None, *, migrate: bool = True,
                 out_dir: Path | None = None, start: bool = False) -> Iterator[StageContext]:
    """Connect, apply pending migrations, yield.

    With no NEO4J_URI configured the project-managed Neo4j is used: started when ``start`` (`db start` and
    the demo ask for that), else a stopped server is an error that says how to start it, so no other
    command starts a server unasked.
    """
    settings = settings or GraphforgeSettings()
    if settings.managed and not start:
        require_running(settings)
    info = server.resolve(settings, start=start)
    driver = server.open_driver(info)
    try:
        graph = Graph(driver, info.database, settings.batch_size, settings.fetch_size)
        if migrate:
            migrations.migrate(graph)
        yield StageContext(settings, graph, out_dir=out_dir or Path("out"))
    finally:
        driver.close()


def require_running(settings: GraphforgeSettings) -> None:
    """Raise a one-line error when the project-managed Neo4j is not running."""
    managed = server.ManagedServer(settings)
    if managed.pid() is None:
        raise GraphConnectionError(
            f"Neo4j is not running (the managed server under {managed.home}); start it with "
            "`graphforge db start`, or set NEO4J_URI to use your own")

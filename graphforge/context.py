"""The StageContext every stage receives, and how the CLI and tests build one."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from graphforge import migrations, server
from graphforge.graph import Graph
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
                 out_dir: Path | None = None) -> Iterator[StageContext]:
    """Connect (starting the managed Neo4j when none is configured), apply pending migrations, yield."""
    settings = settings or GraphforgeSettings()
    info = server.resolve(settings, start=True)
    driver = server.open_driver(info)
    try:
        graph = Graph(driver, info.database, settings.batch_size, settings.fetch_size)
        if migrate:
            migrations.migrate(graph)
        yield StageContext(settings, graph, out_dir=out_dir or Path("out"))
    finally:
        driver.close()

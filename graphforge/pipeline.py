"""The demo pipeline: plain code calling stages in order through run_stage()."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel

from graphforge import db
from graphforge.context import StageContext, open_context
from graphforge.errors import GraphforgeError, StageError
from graphforge.settings import GraphforgeSettings

T = TypeVar("T")


class DemoResult(BaseModel):
    neo4j_version: str
    bolt_uri: str
    browser_url: str | None
    stages: dict[str, float]
    nodes: int
    relationships: int
    out_dir: str


def run_stage(ctx: StageContext, name: str, fn: Callable[[], T], timings: dict[str, float]) -> T:
    """Run one stage, time it, and wrap any failure in StageError(stage=name)."""
    started = time.perf_counter()
    try:
        return fn()
    except GraphforgeError as exc:
        raise StageError(name, str(exc)) from exc
    finally:
        timings[name] = round(time.perf_counter() - started, 3)


def run_demo(settings: GraphforgeSettings | None = None, out_dir: Path = Path("out/demo")) -> DemoResult:
    """Run every stage on the bundled sample. Safe to re-run: stages MERGE on natural keys."""
    settings = settings or GraphforgeSettings()
    timings: dict[str, float] = {}
    with open_context(settings, out_dir=out_dir) as ctx:
        component = run_stage(ctx, "server", lambda: db.server_component(ctx.graph), timings)
        counts = db.counts(ctx.graph)
    from graphforge import server

    info = server.resolve(settings, start=False)
    return DemoResult(neo4j_version=component.version, bolt_uri=info.uri, browser_url=info.browser_url,
                      stages=timings, nodes=counts.total_nodes, relationships=counts.total_relationships,
                      out_dir=str(out_dir))

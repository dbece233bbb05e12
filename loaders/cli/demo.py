"""`graphforge demo`: the whole pipeline on the bundled sample, end to end."""

from __future__ import annotations

from graphforge.cli.common import JsonOption, app, emit


@app.command("demo")
def demo_cmd(as_json: JsonOption = False) -> None:
    """Start Neo4j if none is configured, migrate, and run the pipeline on the bundled sample."""
    from graphforge import pipeline

    result = pipeline.run_demo()
    emit(result, as_json, "GraphForge demo")

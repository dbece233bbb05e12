"""`graphforge load benchmark DIR --name NAME`: evaluation tasks and reference files for the audit."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from graphforge.cli.common import JsonOption, emit, load_app


@load_app.command("benchmark")
def load_benchmark_cmd(
    directory: Annotated[Path, typer.Argument(help="Folder with task records (*.jsonl / *.json) and "
                                                    "reference files (e.g. reference_files/).")],
    name: Annotated[str, typer.Option("--name", help="Benchmark name, e.g. gdpval (the audit and "
                                                     "export refer to it).")],
    as_json: JsonOption = False,
) -> None:
    """Load a benchmark's tasks (prompt, occupation) and reference files (sha256, parsed text)."""
    from graphforge.context import open_context
    from loaders.benchmark import load_benchmark

    with open_context() as ctx:
        result = load_benchmark(ctx, directory, name)
    emit(result, as_json, f"benchmark {name}")

"""CLI commands of the audit area: `graphforge audit contamination --benchmark NAME`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from graphforge.cli.common import JsonOption, emit, working


def contamination_cmd(
    benchmark: Annotated[
        list[str], typer.Option("--benchmark", "-b", help="Benchmark name (repeat for several).")
    ],
    top_k: Annotated[
        int, typer.Option("--top-k", help="Most similar pairs shown with their shared passages.")
    ] = 20,
    out: Annotated[Path | None, typer.Option("--out", help="Report folder (default out/audit).")] = None,
    min_shared: Annotated[
        int, typer.Option("--min-shared-ngrams", help="Shared 13-grams from which a pair counts as overlap.")
    ] = 1,
    method: Annotated[str, typer.Option("--method", help="exact | minhash | both")] = "both",
    threshold: Annotated[
        float,
        typer.Option("--minhash-threshold", help="Jaccard from which MinHash pairs are near-duplicates."),
    ] = 0.5,
    as_json: JsonOption = False,
) -> None:
    """Audit every workspace file against benchmark files and prompts; store an Audit node and a report."""
    from graphforge.context import open_context
    from graphforge.stages import audit_contamination as stage

    if method not in ("exact", "minhash", "both"):
        raise typer.BadParameter(f"{method!r} is not one of 'exact', 'minhash', 'both'",
                                 param_hint="'--method'")
    params = stage.AuditContaminationParams(benchmarks=benchmark, top_k=top_k, out_dir=out,
                                            min_shared_ngrams=min_shared, method=method,
                                            minhash_threshold=threshold)
    with open_context() as ctx, working("contamination audit"):
        result = stage.run(ctx, params)
    emit(
        result,
        as_json,
        "contamination audit" + (" — OVERLAPS FOUND" if result.found_overlaps else " — clean"),
    )

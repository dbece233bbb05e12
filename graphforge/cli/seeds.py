"""`graphforge seeds build|select|vocab` and `graphforge report coverage`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from graphforge.cli.common import JsonOption, choice, emit, working


def vocab_cmd(
    path: Annotated[Path | None, typer.Argument(help="Vocabulary YAML (default: the bundled one).")] = None,
    as_json: JsonOption = False,
) -> None:
    """Load the execution-pattern and input-family vocabularies as nodes."""
    from graphforge.context import open_context
    from graphforge.stages import load_vocab

    with open_context() as ctx:
        result = load_vocab.run(ctx, load_vocab.LoadVocabParams(path=path))
    emit(result, as_json, "Vocabulary loaded")


def build_cmd(
    backend: Annotated[
        str,
        typer.Option(
            "--backend", help="auto (chat model when configured, else rule-based), rule-based or llm."
        ),
    ] = "auto",
    vocab: Annotated[
        Path | None, typer.Option("--vocab", help="Vocabulary YAML replacing the bundled one.")
    ] = None,
    min_support: Annotated[
        float,
        typer.Option("--min-support", help="Share of a demand's content words its evidence must contain."),
    ] = 0.6,
    keep_stale: Annotated[
        bool, typer.Option("--keep-stale", help="Keep seeds an earlier build made that this one does not.")
    ] = False,
    no_fallback: Annotated[
        bool,
        typer.Option("--no-fallback", help="With the chat model: a task whose answer gives no valid, "
                     "supported demand gets no seed (default: the rule-based demands, counted)."),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Build candidate seeds from DIGITAL tasks; unsupported demands are dropped and counted."""
    from graphforge.context import open_context
    from graphforge.stages import build_seeds

    chosen = choice(build_seeds.DemandBackend, backend, "--backend")
    params = build_seeds.BuildSeedsParams(backend=chosen, vocab=vocab,
                                          min_support=min_support, replace=not keep_stale,
                                          fallback=not no_fallback)
    with open_context() as ctx, working("building seeds"):
        result = build_seeds.run(ctx, params)
    emit(result, as_json, "Seeds built")


def select_cmd(
    n: Annotated[int, typer.Option("--n", "-n", min=1, help="How many seeds to select.")],
    method: Annotated[
        str,
        typer.Option(
            "--method",
            help="lazy (grouped CELF, default), naive (every candidate "
            "each round) or numpy (vectorised naive); all give the same order.",
        ),
    ] = "lazy",
    no_rebalance: Annotated[
        bool, typer.Option("--no-rebalance", help="Take the greedy order as is.")
    ] = False,
    pool_factor: Annotated[
        int,
        typer.Option(
            "--pool-factor", min=1, help="Greedy ranks n x this many candidates for the rebalancing pass."
        ),
    ] = 3,
    demand_cap: Annotated[
        int, typer.Option("--demand-cap", min=1, help="Most selected seeds per normalised demand.")
    ] = 1,
    extend: Annotated[
        bool, typer.Option("--extend", help="Keep the current selection and add n more.")
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Select seeds greedily by marginal coverage gain, then rebalance; ranks are stored on the Seeds."""
    from graphforge.context import open_context
    from graphforge.stages import select_seeds

    # An unknown --method fails validation here; the entry point reports it as one line.
    params = select_seeds.SelectSeedsParams.model_validate(
        {"n": n, "method": method, "rebalance": not no_rebalance, "pool_factor": pool_factor,
         "demand_cap": demand_cap, "extend": extend})
    with open_context() as ctx, working("selecting seeds"):
        result = select_seeds.run(ctx, params)
    emit(result, as_json, "Seeds selected")


def coverage_cmd(
    out: Annotated[Path, typer.Option("--out", help="Folder for coverage.html, the heatmap PNGs and JSON.")],
    as_json: JsonOption = False,
) -> None:
    """Sector x pattern heatmaps and distinct-value counts for selected seeds and the candidate pool."""
    from graphforge.context import open_context
    from graphforge.stages import report_coverage

    with open_context(out_dir=out) as ctx, working("coverage report"):
        result = report_coverage.run(ctx, report_coverage.ReportCoverageParams(out_dir=out))
    emit(result, as_json, "Coverage report")

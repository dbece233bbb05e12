"""`graphforge seeds build|select|vocab|suggest|assign` and `graphforge report coverage`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from graphforge.cli.common import JsonOption, choice, emit, stdout, working

if TYPE_CHECKING:
    from graphforge.seeds.fit import SeedSuggestion
    from graphforge.stages.load_workspace import LoadWorkspaceResult


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
    from graphforge.cli.status import note_if_idle
    from graphforge.context import open_context
    from graphforge.stages import build_seeds

    chosen = choice(build_seeds.DemandBackend, backend, "--backend")
    params = build_seeds.BuildSeedsParams(backend=chosen, vocab=vocab,
                                          min_support=min_support, replace=not keep_stale,
                                          fallback=not no_fallback)
    with open_context() as ctx, working("building seeds"):
        result = build_seeds.run(ctx, params)
        note_if_idle(ctx.graph, "seeds build")
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


# The suggestion table's columns (seed id and a * for the workspace's own, score, occupation, task):
# 17 + 2 + 5 + 2 + 30 + 2 + 42 = 100.
_OCCUPATION_WIDTH = 30
_TASK_WIDTH = 42


def _cut(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "\u2026"


def suggestion_lines(result: SeedSuggestion) -> list[str]:
    """The human form of a SeedSuggestion: a heading, then one line of at most 100 columns per seed."""
    pool = "selected seeds" if result.pool == "selected" else "seeds"
    lines = [f"Seeds ranked by fit to workspace {result.workspace_id} ({result.seeds_ranked} {pool})"]
    if result.current_seed:
        score = "not scored" if result.current_score is None else f"{result.current_score:.3f}"
        lines.append(f"its seed: {result.current_seed} ({result.current_source}, fit {score})")
    else:
        lines.append("its seed: none")
    if not result.suggestions:
        lines.append("no seeds in the graph: graphforge seeds build (then seeds select)")
        return lines
    lines.append(f"{'seed_id':17}  {'score':>5}  {'occupation':{_OCCUPATION_WIDTH}}  task")
    for fit in result.suggestions:
        mark = "*" if fit.seed_id == result.current_seed else " "
        occupation = _cut(fit.occupation, _OCCUPATION_WIDTH)
        lines.append(f"{fit.seed_id + mark:17}  {fit.score:5.3f}  {occupation:{_OCCUPATION_WIDTH}}  "
                     f"{_cut(fit.task, _TASK_WIDTH)}")
    return lines


def suggest_cmd(
    workspace: Annotated[str, typer.Option("--workspace", help="The workspace to fit seeds to.")],
    top: Annotated[int | None, typer.Option(
        "--top", min=1, help="Show only the N best (default: all).")] = None,
    every_seed: Annotated[bool, typer.Option(
        "--all", help="Rank every seed in the graph, not only the selected ones.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Rank seeds by how well their occupation, task and DWA text fit the workspace's files and facts.

    TF-IDF cosine (sublinear tf, English stop words, light stemming) between each seed's words and the
    folder's (file names, the openings of its files, its facts); see graphforge/seeds/fit.py.
    """
    from graphforge.cli.listing import require_known
    from graphforge.context import open_context
    from graphforge.seeds.fit import suggest

    with open_context() as ctx:
        require_known(ctx.graph, "workspace", workspace, "--workspace")
        result = suggest(ctx.graph, workspace, "all" if every_seed else "selected", top)
    if as_json:
        emit(result, True)
    else:
        for line in suggestion_lines(result):
            stdout.print(line, soft_wrap=True, highlight=False, markup=False)


def assign_cmd(
    workspace: Annotated[str, typer.Option("--workspace", help="The workspace whose seed to set.")],
    seed: Annotated[str, typer.Option("--seed", help="The seed it serves (`seeds suggest` ranks them).")],
    as_json: JsonOption = False,
) -> None:
    """Make SEED the workspace's seed (kept on later loads); compile its specs again to use it."""
    from graphforge.cli.listing import require_known
    from graphforge.context import open_context
    from graphforge.seeds.fit import assign, suggest

    with open_context() as ctx:
        require_known(ctx.graph, "workspace", workspace, "--workspace")
        require_known(ctx.graph, "seed", seed, "--seed")
        assign(ctx.graph, workspace, seed, "user")
        fit = suggest(ctx.graph, workspace, "all")
    emit({"workspace_id": workspace, "seed_id": seed, "seed_source": "user", "fit": fit.current_score,
          "next": f"graphforge specs compile --workspace {workspace}"}, as_json, "Seed assigned")


def load_note(result: LoadWorkspaceResult) -> str | None:
    """What `load workspace` says about the seed it assigned by fit (None when the user chose one)."""
    wid = result.workspace_id
    if result.seed_source == "fit" and result.seed_fit is not None:
        from graphforge.seeds.fit import POOR_FIT

        poor = (f" (a poor fit, below {POOR_FIT}: `--all` ranks every seed)"
                if result.seed_fit < POOR_FIT else "")
        return (f"seed: {result.seed_id} ({result.seed_occupation}) fits the folder best of "
                f"{result.seeds_ranked} seeds, score {result.seed_fit:.3f}; "
                f"`graphforge seeds suggest --workspace {wid}` ranks them{poor}, `--seed ID` chooses one")
    if result.seed_source is None and result.seeds_ranked:
        return (f"seed: none assigned (no seed shares a word with the folder); "
                f"`graphforge seeds suggest --workspace {wid} --all` ranks every seed")
    return None


def coverage_cmd(
    out: Annotated[Path, typer.Option("--out", help="Folder for coverage.html, the heatmap PNGs and JSON.")],
    as_json: JsonOption = False,
) -> None:
    """Sector x pattern heatmaps and distinct-value counts for selected seeds and the candidate pool."""
    from graphforge.cli.status import note_if_idle
    from graphforge.context import open_context
    from graphforge.stages import report_coverage

    with open_context(out_dir=out) as ctx, working("coverage report"):
        result = report_coverage.run(ctx, report_coverage.ReportCoverageParams(out_dir=out))
        note_if_idle(ctx.graph, "report coverage")
    emit(result, as_json, "Coverage report")

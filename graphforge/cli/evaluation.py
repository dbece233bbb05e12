"""CLI commands of the evaluation area: `eval run|compare|elo|winrate|sample[-benchmark]`, `report corpus`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from graphforge.cli.common import JsonOption, emit, stdout, working
from graphforge.models.benchmark import FinalWrite
from graphforge.models.trajectory import TrajectoryStatus
from loaders.trajectories.formats import format_names

ComparisonsArg = Annotated[
    Path,
    typer.Argument(
        help="Comparison file (.jsonl or .csv): task_id, model_a, "
        "model_b, winner in {a, b, tie}; optional scaffold_a, "
        "scaffold_b and task attributes."
    ),
]
BootstrapOption = Annotated[int, typer.Option("--bootstrap", min=0, help="Bootstrap resamples for the CIs.")]
SeedOption = Annotated[int, typer.Option("--seed", help="Seed of the bootstrap resampling.")]


def _anchor(value: str) -> tuple[str, float]:
    from graphforge.errors import ConfigError

    name, sep, rating = value.rpartition("=")
    if not sep:
        return value, 1667.0
    try:
        return name, float(rating)
    except ValueError as exc:
        raise ConfigError(
            f"--anchor takes NAME=RATING, e.g. 'anchor-model (openhands)=1667', got {value!r}"
        ) from exc


def elo_cmd(
    comparisons: ComparisonsArg,
    anchor: Annotated[
        str,
        typer.Option(
            "--anchor",
            help="NAME=RATING: the player held fixed "
            "(a model, or 'model (scaffold)'), e.g. "
            "'glm (openhands)=1667'.",
        ),
    ],
    bootstrap: BootstrapOption = 10_000,
    seed: SeedOption = 0,
    confidence: Annotated[float, typer.Option(help="CI level.")] = 0.95,
    ridge: Annotated[float, typer.Option(help="Ridge on the strengths (identifiability).")] = 1e-4,
    out: Annotated[Path, typer.Option("--out", help="Writes elo.json, elo.csv, elo.png, elo.html.")] = Path(
        "out/eval"
    ),
    store: Annotated[
        bool,
        typer.Option(
            "--store", help="Also store the fit in Neo4j: a RatingRun and a Rating per player (Elo, CI)."
        ),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Bradley-Terry Elo (ties as half a win) anchored at one player, with bootstrap CIs (Neo4j: --store)."""
    from graphforge.eval import elo

    name, rating = _anchor(anchor)
    params = elo.EloParams(
        comparisons=comparisons,
        anchor=name,
        anchor_rating=rating,
        bootstrap=bootstrap,
        seed=seed,
        confidence=confidence,
        ridge=ridge,
        out_dir=out,
    )
    if not store:
        emit(elo.run(params), as_json, summary=_elo_summary)
        return
    from graphforge.context import open_context
    from graphforge.stages import eval_ratings

    with open_context() as ctx:
        with working("rating players"):
            stored = eval_ratings.run(ctx, eval_ratings.StoreRatingsParams(elo=params))
    if as_json:
        emit(stored, as_json)
        return
    _elo_summary(stored.elo)
    stdout.print(f"stored in Neo4j: RatingRun {stored.run_id} with {stored.ratings_written} ratings")


def _elo_summary(result: Any) -> None:
    pct = round(result.confidence * 100)
    table = Table(
        title=f"Elo ({result.comparisons} comparisons, {result.models} players, anchor "
        f"{result.anchor} = {result.anchor_rating:g}, {result.bootstrap} resamples)"
    )
    for column in ("rank", "player", "Elo", f"{pct}% CI", "n", "W/L/T"):
        table.add_column(column, justify="left" if column == "player" else "right")
    for r in result.ratings:
        table.add_row(
            str(r.rank),
            r.model,
            f"{r.elo:.1f}",
            f"[{r.ci_low:.1f}, {r.ci_high:.1f}]",
            str(r.comparisons),
            f"{r.wins}/{r.losses}/{r.ties}",
        )
    stdout.print(table)
    for warning in result.warnings:
        stdout.print(f"[yellow]warning:[/] {warning}")
    if result.outputs:
        stdout.print(f"report: {result.outputs['html']}  (json: {result.outputs['json']})")


def winrate_cmd(
    comparisons: ComparisonsArg,
    a: Annotated[str, typer.Option("--a", help="Player whose win rate is reported.")],
    b: Annotated[str, typer.Option("--b", help="Opponent.")],
    by: Annotated[str | None, typer.Option("--by", help="Task attribute to split by, e.g. covered.")] = None,
    bootstrap: BootstrapOption = 10_000,
    seed: SeedOption = 0,
    confidence: Annotated[float, typer.Option(help="CI level.")] = 0.95,
    out: Annotated[
        Path | None, typer.Option("--out", help="Also write winrate.json, .png and .html here.")
    ] = None,
    coverage_from: Annotated[
        str,
        typer.Option(
            "--coverage-from",
            help="With --by covered: 'graph' computes coverage from Neo4j (a selected "
            "seed with an admitted trajectory for the task's occupation, sector "
            "or DWA); 'file' uses the file's own covered column.",
        ),
    ] = "graph",
    coverage_level: Annotated[
        str, typer.Option("--coverage-level", help="occupation | sector | dwa (with --coverage-from graph).")
    ] = "occupation",
    benchmark: Annotated[
        str | None,
        typer.Option("--benchmark", help="Benchmark of the tasks, for files without a benchmark column."),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Win rate of --a against --b (ties as half a win) with bootstrap CIs, overall and by task attribute.

    `--by covered` splits by training coverage computed from Neo4j; every other --by names a column."""
    from graphforge.errors import ConfigError
    from graphforge.eval import winrate

    # Every option value is checked before the comparisons file is read.
    if coverage_from not in ("graph", "file"):
        raise ConfigError(f"--coverage-from is graph or file, got {coverage_from!r}")
    if coverage_level not in ("occupation", "sector", "dwa"):
        raise ConfigError(f"--coverage-level is occupation, sector or dwa, got {coverage_level!r}")
    graph_coverage = by == "covered" and coverage_from == "graph"
    if benchmark is not None and not graph_coverage:
        raise ConfigError(f"--benchmark {benchmark!r} is used only with --by covered --coverage-from graph "
                          "(it names the benchmark of a comparisons file without a benchmark column)")
    if graph_coverage:
        from graphforge.cli.listing import require_known
        from graphforge.context import open_context
        from graphforge.stages import eval_winrate

        params = eval_winrate.GraphWinRateParams(
            comparisons=comparisons,
            a=a,
            b=b,
            level=coverage_level,
            benchmark=benchmark,
            bootstrap=bootstrap,
            seed=seed,
            confidence=confidence,
            out_dir=out,
        )
        with open_context() as ctx:
            require_known(ctx.graph, "benchmark", benchmark, "--benchmark")
            with working("win rates by coverage"):
                graph_result = eval_winrate.run(ctx, params)
        if as_json:
            emit(graph_result, as_json)
            return
        _winrate_summary(graph_result.winrate)
        stdout.print(
            f"covered = the task's {graph_result.level} has a selected seed with an admitted trajectory: "
            f"{len(graph_result.covered_tasks)} of {graph_result.tasks} tasks"
            + (
                f"; {len(graph_result.unlinked_tasks)} name no occupation of the loaded taxonomy"
                if graph_result.unlinked_tasks
                else ""
            )
        )
        return
    result = winrate.run(
        winrate.WinRateParams(
            comparisons=comparisons,
            a=a,
            b=b,
            by=by,
            bootstrap=bootstrap,
            seed=seed,
            confidence=confidence,
            out_dir=out,
        )
    )
    emit(result, as_json, summary=_winrate_summary)


def _winrate_summary(result: Any) -> None:
    pct = round(result.confidence * 100)
    table = Table(title=f"Win rate of {result.a} vs {result.b} ({result.bootstrap} resamples)")
    for column in ("group", "n", "W/L/T", "win rate", f"{pct}% CI"):
        table.add_column(column, justify="left" if column == "group" else "right")
    for r in result.rows:
        table.add_row(
            r.group,
            str(r.comparisons),
            f"{r.wins}/{r.losses}/{r.ties}",
            f"{r.win_rate:.3f}",
            f"[{r.ci_low:.3f}, {r.ci_high:.3f}]",
        )
    stdout.print(table)
    if result.outputs:
        stdout.print(f"report: {result.outputs['html']}")


def run_cmd(
    benchmark: Annotated[
        str, typer.Option("--benchmark", "-b", help="A benchmark loaded with `load benchmark`.")
    ],
    model: Annotated[
        list[str],
        typer.Option(
            "--model",
            "-m",
            help="NAME=ENDPOINT, repeatable: an OpenAI-compatible URL (the built-in agent loop with "
            "sandboxed tools), 'local' (the managed local model, same loop), 'oracle' (the benchmark's "
            "expert deliverables) or "
            f"'import:FORMAT:PATH' (trajectories from {'|'.join(format_names(evaluable=True))} logs "
            "whose spec_id is the task id).",
        ),
    ],
    system_prompt: Annotated[
        list[str] | None,
        typer.Option(
            "--system-prompt",
            help="NAME=TEXT or NAME=@FILE: the system prompt of a chat player (default: the loop's own).",
        ),
    ] = None,
    served_model: Annotated[
        list[str] | None,
        typer.Option(
            "--served-model",
            help="NAME=ID: the model id a chat player's endpoint serves (default: "
            "GRAPHFORGE_LLM_MODEL for the configured endpoint, else the first of /models).",
        ),
    ] = None,
    api_key_env: Annotated[
        list[str] | None,
        typer.Option(
            "--api-key-env",
            help="NAME=VAR: environment variable with a chat player's API key (the configured "
            "GRAPHFORGE_LLM_API_KEY is only sent to GRAPHFORGE_LLM_BASE_URL).",
        ),
    ] = None,
    task: Annotated[
        list[str] | None, typer.Option("--task", help="Only these task ids (repeatable).")
    ] = None,
    concurrency: Annotated[int, typer.Option(min=1, help="Attempts at once.")] = 4,
    max_steps: Annotated[int, typer.Option(min=1, help="Assistant turns per attempt.")] = 12,
    temperature: Annotated[
        float | None, typer.Option(help="Sampling temperature (default: the server's).")
    ] = None,
    max_tokens: Annotated[
        int | None, typer.Option(min=1, help="Cap on each answer's tokens (default: the server's).")
    ] = None,
    benchmark_dir: Annotated[
        Path | None,
        typer.Option("--benchmark-dir", exists=True, file_okay=False,
                     help="The benchmark folder, when not where it was loaded from."),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Run completed attempts again.")] = False,
    final_write: Annotated[
        FinalWrite,
        typer.Option("--final-write", help="A chat player that stops without a deliverable its task "
                     "names (the record's deliverables) is told to write it, in one more turn whose call "
                     "is forced: by tool_choice (any OpenAI-compatible server), or by a llama.cpp grammar "
                     "in the form of the text tool-call template GraphForge serves its fine-tuned models "
                     "with."),
    ] = FinalWrite.OFF,
    final_write_tokens: Annotated[
        int | None,
        typer.Option("--final-write-tokens", min=1, help="Reply budget of the forced write (default: "
                     "--max-tokens); its grammar holds the written file to as many characters."),
    ] = None,
    held_turns: Annotated[
        bool,
        typer.Option("--held-turns", help="Hold every turn of a chat player, by a llama.cpp grammar, to "
                     "prose and at most one well-formed call in the text tool-call template's form, "
                     "read_file's path one of the task's files."),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Run players on a benchmark's tasks; each result is an Attempt in Neo4j (resumable, concurrent)."""
    from graphforge.cli.listing import require_known
    from graphforge.context import open_context
    from graphforge.eval.players import build_players
    from graphforge.stages import eval_run

    players = build_players(model, system_prompt, served_model, api_key_env,
                            import_formats=format_names(evaluable=True))
    params = eval_run.EvalRunParams(
        benchmark=benchmark,
        players=players,
        task_ids=task or None,
        concurrency=concurrency,
        max_steps=max_steps,
        max_tokens=max_tokens,
        temperature=temperature,
        benchmark_dir=benchmark_dir,
        force=force,
        final_write=final_write,
        final_write_tokens=final_write_tokens,
        held_turns=held_turns,
    )
    with open_context() as ctx:
        require_known(ctx.graph, "benchmark", benchmark, "--benchmark")
        with working(f"players attempting {benchmark}"):
            result = eval_run.run(ctx, params)
    emit(result, as_json, summary=_run_summary)


def _run_summary(r: Any) -> None:
    table = Table(
        title=f"eval run on {r.benchmark}: {r.tasks} tasks x {len(r.players)} players "
        f"({len(r.skipped)} attempts already complete)"
    )
    for column in ("player", "task", "status", "stop", "steps", "deliverables"):
        table.add_column(column)
    for a in r.attempts:
        table.add_row(
            a.player, a.task_id, a.status, a.stop_reason[:60], str(a.steps), ", ".join(a.deliverables)
        )
    stdout.print(table)
    stdout.print(
        f"{r.completed} completed ({r.with_output} with output), {r.errors} errors; "
        f"{r.llm_calls} chat calls ({r.cached_calls} cached), "
        f"{r.prompt_tokens + r.completion_tokens} tokens, ${r.cost_usd:.4f}"
    )


def compare_cmd(
    benchmark: Annotated[
        str, typer.Option("--benchmark", "-b", help="The benchmark whose attempts to compare.")
    ],
    out: Annotated[Path, typer.Option("--out", help="Comparisons file to write (.jsonl or .csv).")] = Path(
        "out/eval/comparisons.jsonl"
    ),
    judge: Annotated[
        str | None,
        typer.Option(
            "--judge", help="NAME=URL of the judging chat model (default: the configured GRAPHFORGE_LLM_*)."
        ),
    ] = None,
    judge_model: Annotated[
        str | None, typer.Option("--judge-model", help="Model id the --judge URL serves.")
    ] = None,
    judge_api_key_env: Annotated[
        str | None,
        typer.Option("--judge-api-key-env", help="Environment variable with the --judge endpoint's API key."),
    ] = None,
    player: Annotated[
        list[str] | None, typer.Option("--player", help="Only these players (repeatable).")
    ] = None,
    concurrency: Annotated[int, typer.Option(min=1, help="Pairs judged at once.")] = 4,
    min_consistency: Annotated[
        float,
        typer.Option(help="Fail when fewer pairs than this keep their verdict with the positions swapped."),
    ] = 0.6,
    as_json: JsonOption = False,
) -> None:
    """Judge attempts pairwise (both orders, ties allowed); store each judgment; write the comparisons."""
    from graphforge.cli.listing import require_known
    from graphforge.context import open_context
    from graphforge.stages import eval_compare

    spec = eval_compare.judge_spec(judge, judge_model, judge_api_key_env) if judge else None
    params = eval_compare.EvalCompareParams(
        benchmark=benchmark,
        out=out,
        judge=spec,
        players=player or None,
        concurrency=concurrency,
        min_consistency=min_consistency,
    )
    with open_context() as ctx:
        require_known(ctx.graph, "benchmark", benchmark, "--benchmark")  # before the judge is set up
        try:
            with working(f"judging pairs on {benchmark}"):
                result = eval_compare.run(ctx, params)
        except eval_compare.PositionBiasError as exc:
            if not as_json:
                _compare_summary(exc.result)
            raise
    emit(result, as_json, summary=_compare_summary)


def _compare_summary(r: Any) -> None:
    def pct(value: float | None) -> str:
        return "n/a" if value is None else f"{100 * value:.0f}%"

    table = Table(title=f"eval compare on {r.benchmark} (judge {r.judge})", show_header=False, box=None)
    table.add_column(style="bold cyan")
    table.add_column()
    for key, value in (
        ("players", ", ".join(r.players)),
        (
            "pairs",
            f"{r.pairs} over {r.tasks} tasks: {r.judged} judged now, {r.reused} reused, "
            f"{r.by_rule} decided by a missing deliverable, {len(r.unjudged)} without verdict",
        ),
        ("ties", str(r.ties)),
        ("swap consistency", f"{pct(r.consistency)} (minimum {pct(r.min_consistency)})"),
        ("first-position verdicts", pct(r.first_position_rate)),
        (
            "chat calls",
            f"{r.llm_calls} ({r.cached_calls} cached), {r.prompt_tokens + r.completion_tokens} "
            f"tokens, ${r.cost_usd:.4f}",
        ),
        ("comparisons", r.comparisons),
    ):
        table.add_row(key, value)
    stdout.print(table)
    if r.not_compared:
        stdout.print(f"[yellow]not compared (no completed attempt):[/] {', '.join(r.not_compared)}")
    for problem in r.unjudged:
        stdout.print(f"[yellow]no verdict:[/] {problem}")


def sample_benchmark_cmd(
    path: Annotated[Path, typer.Argument(help="Folder to write the benchmark into.")] = Path(
        "out/eval-benchmark"
    ),
    as_json: JsonOption = False,
) -> None:
    """Write a small benchmark with checkable answers and expert deliverables (for trying `eval run`)."""
    from graphforge.demo.sample.benchmark import write_eval_benchmark

    sample = write_eval_benchmark(path)
    emit(
        {
            "path": str(sample.root),
            "name": sample.name,
            "tasks": len(sample.task_ids),
            "next": f"graphforge load benchmark {sample.root} --name {sample.name}",
        },
        as_json,
        title="sample benchmark",
    )


def sample_cmd(
    path: Annotated[Path, typer.Argument(help="Where to write (.jsonl or .csv).")] = Path(
        "out/eval/sample_comparisons.jsonl"
    ),
    seed: Annotated[int, typer.Option(help="Seed of the synthetic outcomes.")] = 7,
    as_json: JsonOption = False,
) -> None:
    """Write the bundled synthetic comparison sample (fictional players with known strengths)."""
    from graphforge.demo.sample import comparisons

    written = comparisons.write_sample(path, seed=seed)
    emit(
        {
            "path": str(written),
            "comparisons": len(comparisons.sample_rows(seed)),
            "anchor": comparisons.SAMPLE_ANCHOR,
        },
        as_json,
        title="sample comparisons",
    )


def report_corpus_cmd(
    out: Annotated[
        Path, typer.Option("--out", help="Directory for corpus_report.html, corpus_report.json and plots.")
    ] = Path("out/reports"),
    status: Annotated[
        list[TrajectoryStatus] | None,
        typer.Option(
            "--status", help="Trajectory statuses that form the corpus (repeatable); default: admitted."
        ),
    ] = None,
    all_trajectories: Annotated[
        bool, typer.Option("--all", help="Describe every trajectory, whatever its status.")
    ] = False,
    admit_q: Annotated[float, typer.Option(help="Admission threshold on Q (funnel).")] = 0.90,
    as_json: JsonOption = False,
) -> None:
    """Corpus statistics from the graph (patterns, sectors, lengths, formats, funnel, Q, revisions), HTML."""
    from graphforge.context import open_context
    from graphforge.stages import report_corpus

    statuses = None if all_trajectories else ([s.value for s in status] if status else ["admitted"])
    with open_context() as ctx, working("corpus report"):
        result = report_corpus.run(
            ctx, report_corpus.ReportCorpusParams(out_dir=out, statuses=statuses, admit_q=admit_q)
        )
    emit(result, as_json, summary=_corpus_summary)


def _corpus_summary(r: Any) -> None:
    def pct(value: float | None) -> str:
        return "n/a" if value is None else f"{100 * value:.1f}%"

    def num(value: float | None) -> str:
        return "n/a" if value is None else f"{value:,.1f}"

    table = Table(title="corpus report", show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold cyan")
    table.add_column()
    corpus = "every trajectory" if r.statuses is None else "status " + ", ".join(r.statuses)
    f = r.funnel
    for key, value in (
        ("trajectories", f"{r.trajectories} ({corpus})"),
        ("execution patterns", f"{r.patterns_covered} of {r.patterns_total}"),
        ("sectors", f"{r.sectors_covered} of {r.sectors_total}"),
        ("sector x pattern cells", f"{r.cells_realised} of {r.cells_possible}"),
        ("task types (DWA)", f"{r.task_types} of {r.task_types_total}"),
        (
            "assistant steps",
            f"mean {num(r.steps.mean)}, median {num(r.steps.median)}, p95 {num(r.steps.p95)}",
        ),
        ("tokens", f"mean {num(r.tokens.mean)}, median {num(r.tokens.median)}, p95 {num(r.tokens.p95)}"),
        ("with a PDF", pct(r.pdf_share)),
        (
            "funnel",
            f"{f.trajectories} trajectories -> {f.materialised} materialised -> {f.judged} judged -> "
            f"{f.passed_q} Q > {r.admit_q:g} -> {f.admitted} admitted after cleaning",
        ),
        ("revision reuse rate", pct(r.revision_reuse_rate)),
        ("report", r.outputs.get("html", "")),
    ):
        table.add_row(key, value)
    stdout.print(table)

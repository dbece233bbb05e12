"""CLI commands of the evaluation area: `eval elo|winrate|sample` and `report corpus`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from graphforge.cli.common import JsonOption, emit, eval_app, report_app, stdout

ComparisonsArg = Annotated[Path, typer.Argument(help="Comparison file (.jsonl or .csv): task_id, model_a, "
                                                     "model_b, winner in {a, b, tie}; optional scaffold_a, "
                                                     "scaffold_b and task attributes.")]
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


@eval_app.command("elo")
def elo_cmd(comparisons: ComparisonsArg,
            anchor: Annotated[str, typer.Option("--anchor", help="NAME=RATING: the player held fixed "
                                                                 "(a model, or 'model (scaffold)'), e.g. "
                                                                 "'glm (openhands)=1667'.")],
            bootstrap: BootstrapOption = 10_000, seed: SeedOption = 0,
            confidence: Annotated[float, typer.Option(help="CI level.")] = 0.95,
            ridge: Annotated[float, typer.Option(help="Ridge on the strengths (identifiability).")] = 1e-4,
            out: Annotated[Path, typer.Option("--out", help="Writes elo.json, elo.csv, elo.png, elo.html.")]
            = Path("out/eval"),
            as_json: JsonOption = False) -> None:
    """Bradley-Terry Elo (ties as half a win) anchored at one player, with bootstrap CIs. No Neo4j needed."""
    from graphforge.eval import elo

    name, rating = _anchor(anchor)
    result = elo.run(elo.EloParams(comparisons=comparisons, anchor=name, anchor_rating=rating,
                                   bootstrap=bootstrap, seed=seed, confidence=confidence, ridge=ridge,
                                   out_dir=out))
    emit(result, as_json, summary=_elo_summary)


def _elo_summary(result: Any) -> None:
    pct = round(result.confidence * 100)
    table = Table(title=f"Elo ({result.comparisons} comparisons, {result.models} players, anchor "
                        f"{result.anchor} = {result.anchor_rating:g}, {result.bootstrap} resamples)")
    for column in ("rank", "player", "Elo", f"{pct}% CI", "n", "W/L/T"):
        table.add_column(column, justify="left" if column == "player" else "right")
    for r in result.ratings:
        table.add_row(str(r.rank), r.model, f"{r.elo:.1f}", f"[{r.ci_low:.1f}, {r.ci_high:.1f}]",
                      str(r.comparisons), f"{r.wins}/{r.losses}/{r.ties}")
    stdout.print(table)
    for warning in result.warnings:
        stdout.print(f"[yellow]warning:[/] {warning}")
    if result.outputs:
        stdout.print(f"report: {result.outputs['html']}  (json: {result.outputs['json']})")


@eval_app.command("winrate")
def winrate_cmd(comparisons: ComparisonsArg,
                a: Annotated[str, typer.Option("--a", help="Player whose win rate is reported.")],
                b: Annotated[str, typer.Option("--b", help="Opponent.")],
                by: Annotated[str | None, typer.Option("--by", help="Task attribute to split by, "
                                                                    "e.g. covered.")] = None,
                bootstrap: BootstrapOption = 10_000, seed: SeedOption = 0,
                confidence: Annotated[float, typer.Option(help="CI level.")] = 0.95,
                out: Annotated[Path | None, typer.Option("--out", help="Also write winrate.json, .png "
                                                                       "and .html here.")] = None,
                as_json: JsonOption = False) -> None:
    """Win rate of --a against --b (ties as half a win) with bootstrap CIs, overall and by task attribute."""
    from graphforge.eval import winrate

    result = winrate.run(winrate.WinRateParams(comparisons=comparisons, a=a, b=b, by=by, bootstrap=bootstrap,
                                               seed=seed, confidence=confidence, out_dir=out))
    emit(result, as_json, summary=_winrate_summary)


def _winrate_summary(result: Any) -> None:
    pct = round(result.confidence * 100)
    table = Table(title=f"Win rate of {result.a} vs {result.b} ({result.bootstrap} resamples)")
    for column in ("group", "n", "W/L/T", "win rate", f"{pct}% CI"):
        table.add_column(column, justify="left" if column == "group" else "right")
    for r in result.rows:
        table.add_row(r.group, str(r.comparisons), f"{r.wins}/{r.losses}/{r.ties}", f"{r.win_rate:.3f}",
                      f"[{r.ci_low:.3f}, {r.ci_high:.3f}]")
    stdout.print(table)
    if result.outputs:
        stdout.print(f"report: {result.outputs['html']}")


@eval_app.command("sample")
def sample_cmd(path: Annotated[Path, typer.Argument(help="Where to write (.jsonl or .csv).")]
               = Path("out/eval/sample_comparisons.jsonl"),
               seed: Annotated[int, typer.Option(help="Seed of the synthetic outcomes.")] = 7,
               as_json: JsonOption = False) -> None:
    """Write the bundled synthetic comparison sample (fictional players with known strengths)."""
    from graphforge.sample import comparisons

    written = comparisons.write_sample(path, seed=seed)
    emit({"path": str(written), "comparisons": len(comparisons.sample_rows(seed)),
          "anchor": comparisons.SAMPLE_ANCHOR}, as_json, title="sample comparisons")


@report_app.command("corpus")
def report_corpus_cmd(
    out: Annotated[
        Path, typer.Option("--out", help="Directory for corpus_report.html, corpus_report.json and plots.")
    ] = Path("out/reports"),
    status: Annotated[
        list[str] | None,
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

    statuses = None if all_trajectories else (status or ["admitted"])
    with open_context() as ctx:
        result = report_corpus.run(ctx, report_corpus.ReportCorpusParams(out_dir=out, statuses=statuses,
                                                                         admit_q=admit_q))
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

"""CLI commands of the export area: `graphforge export sft|rft|rubrics|list`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from graphforge.cli.common import JsonOption, choice, emit, working
from graphforge.cli.listing import ExportKind, trajectories
from graphforge.cli.status import note_if_idle
from graphforge.export.split import HELDOUT_SHARE, SPLIT_SEED

BenchmarkOption = Annotated[
    list[str] | None,
    typer.Option(
        "--benchmark",
        "-b",
        help="Benchmark the data will be evaluated on; its contamination audit must be clean. "
        "Repeat for several.",
    ),
]
MaxTokensOption = Annotated[
    int, typer.Option("--max-tokens", help="Exclude (never truncate) sequences longer than this.", min=1)
]
TokenizerOption = Annotated[
    Path | None,
    typer.Option(
        "--tokenizer",
        exists=True,
        help="tokenizer.json or a local tokenizer directory for exact counts "
        "(default: a tokenizer-free estimate, utf8 bytes / 3 + 4 per message).",
    ),
]
AllowOption = Annotated[
    bool,
    typer.Option(
        "--allow-contaminated",
        help="Export even though the audit found overlaps (recorded on the Export node).",
    ),
]
SkipOption = Annotated[
    bool,
    typer.Option(
        "--skip-audit", help="Export without any contamination audit (recorded on the Export node)."
    ),
]

NoVerifyOption = Annotated[
    bool,
    typer.Option(
        "--no-verify",
        help="Do not replay rows before writing them (by default a row whose replay fails is refused; "
        "see `graphforge export verify`).",
    ),
]

SplitOption = Annotated[
    bool,
    typer.Option(
        "--split",
        help="Export only the training side of a split by workspace (whole occupations where every workspace "
        "has one); the held-out specs and the split's contamination audit go to <name>.split.json, and an "
        "audit that is not clean fails the export.",
    ),
]
ReviewedOnlyOption = Annotated[
    bool,
    typer.Option(
        "--reviewed-only",
        help="Only specs a person accepted in human review (`graphforge review`); without it unreviewed "
        "specs are exported too. A spec rejected in review is never exported.",
    ),
]
SplitSeedOption = Annotated[int, typer.Option("--split-seed", help="Seed of the split (committed default).")]
HeldoutOption = Annotated[
    float, typer.Option("--heldout-share", help="Share of workspaces held out.", min=0.01, max=0.99)
]


def _warn_refused(result: object) -> None:
    """Rows refused because their replay failed: how many and why, one line each, on stderr."""
    from graphforge.export.dataset import ExportSummary

    if isinstance(result, ExportSummary) and result.refused:
        typer.echo(f"warning: {len(result.refused)} row(s) refused because their replay failed:", err=True)
        for r in result.refused[:20]:
            typer.echo(f"  {r.trajectory_id}: {'; '.join(r.problems)[:300]}", err=True)


def _fail_if_empty(result: object, idle: str | None = None) -> None:
    """An export that wrote no row says why on stderr and exits 1 (the files and Export node stay).

    ``idle``: what the graph lacks for this export and what to run first (see graphforge.graphdb.status)."""
    from graphforge.export.dataset import ExportSummary, empty_reason

    if not isinstance(result, ExportSummary):
        return
    why = empty_reason(result)
    if why is not None and idle is not None and not result.seen:
        why = idle.split(": nothing to do: ", 1)[-1]
    if why is not None:
        typer.echo(f"error: the {result.kind} export wrote 0 rows: {why}", err=True)
        raise typer.Exit(1)


def sft_cmd(
    out: Annotated[Path, typer.Argument(help="Folder for sft.jsonl, sft.parquet, sft.manifest.json.")],
    benchmark: BenchmarkOption = None,
    max_tokens: MaxTokensOption = 262_144,
    tokenizer: TokenizerOption = None,
    allow_contaminated: AllowOption = False,
    skip_audit: SkipOption = False,
    no_verify: NoVerifyOption = False,
    split: SplitOption = False,
    split_seed: SplitSeedOption = SPLIT_SEED,
    heldout_share: HeldoutOption = HELDOUT_SHARE,
    reviewed_only: ReviewedOnlyOption = False,
    as_json: JsonOption = False,
) -> None:
    """Export admitted trajectories as an SFT set in trl's conversational format."""
    from graphforge.context import open_context
    from graphforge.export.writer import ensure_out_dir
    from graphforge.stages import export_sft

    ensure_out_dir(out)  # a path mistake is one error line before any work
    params = export_sft.ExportSftParams(
        out_dir=out,
        benchmarks=benchmark or [],
        max_tokens=max_tokens,
        tokenizer=tokenizer,
        allow_contaminated=allow_contaminated,
        skip_audit=skip_audit,
        verify=not no_verify,
        split=split,
        split_seed=split_seed,
        heldout_share=heldout_share,
        reviewed_only=reviewed_only,
    )
    with open_context() as ctx, working("SFT export"):
        result = export_sft.run(ctx, params)
        idle = note_if_idle(ctx.graph, "export sft", quiet=True)
    emit(result, as_json, "SFT export")
    _warn_refused(result)
    _fail_if_empty(result, idle)


def rft_cmd(
    out: Annotated[Path, typer.Argument(help="Folder for rft-<arm>.jsonl/.parquet/.manifest.json.")],
    arm: Annotated[str, typer.Option("--arm", help="Selection rule: anchored | unanchored | random.")],
    k: Annotated[int, typer.Option("--k", help="Candidates per query.", min=1)] = 4,
    threshold: Annotated[
        float, typer.Option("--threshold", help="Keep a query when the anchored best valid Q exceeds this.")
    ] = 0.95,
    independent: Annotated[
        bool,
        typer.Option(
            "--independent", help="Each arm applies the threshold to its own Q (no shared query set)."
        ),
    ] = False,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the random-of-K arm.")] = 0,
    judge: Annotated[str | None, typer.Option("--judge", help="Only judgments by this judge.")] = None,
    model: Annotated[str | None, typer.Option("--model", help="Only rollouts of this model.")] = None,
    benchmark: BenchmarkOption = None,
    max_tokens: MaxTokensOption = 262_144,
    tokenizer: TokenizerOption = None,
    allow_contaminated: AllowOption = False,
    skip_audit: SkipOption = False,
    no_verify: NoVerifyOption = False,
    split: SplitOption = False,
    split_seed: SplitSeedOption = SPLIT_SEED,
    heldout_share: HeldoutOption = HELDOUT_SHARE,
    reviewed_only: ReviewedOnlyOption = False,
    as_json: JsonOption = False,
) -> None:
    """Export one rejection fine-tuning arm; all arms share one query set and candidate pool."""
    from graphforge.context import open_context
    from graphforge.errors import ConfigError
    from graphforge.export.writer import ensure_out_dir
    from graphforge.models.judge import JudgeArm
    from graphforge.stages import export_rft

    chosen = choice(JudgeArm, arm, "--arm")
    ensure_out_dir(out)
    params = export_rft.ExportRftParams(
        out_dir=out,
        arm=chosen,
        k=k,
        threshold=threshold,
        shared_queries=not independent,
        seed=seed,
        judge=judge,
        model=model,
        benchmarks=benchmark or [],
        max_tokens=max_tokens,
        tokenizer=tokenizer,
        allow_contaminated=allow_contaminated,
        skip_audit=skip_audit,
        verify=not no_verify,
        split=split,
        split_seed=split_seed,
        heldout_share=heldout_share,
        reviewed_only=reviewed_only,
    )
    with open_context() as ctx, working(f"RFT export ({chosen.value})"):
        if model and not trajectories(ctx.graph, model=model):
            raise ConfigError(f"--model: no trajectory of model {model!r} in the graph; "
                              "`graphforge list trajectories` shows the models")
        result = export_rft.run(ctx, params)
        idle = note_if_idle(ctx.graph, "export rft", quiet=True)
    emit(result, as_json, f"RFT export ({chosen.value})")
    _warn_refused(result)
    _fail_if_empty(result, idle)


def rubrics_cmd(
    out: Annotated[Path, typer.Argument(help="Folder for rubrics.jsonl and grpo_prompts.jsonl.")],
    only_admitted: Annotated[
        bool, typer.Option("--only-admitted", help="Only specs with an admitted trajectory.")
    ] = False,
    reviewed_only: ReviewedOnlyOption = False,
    as_json: JsonOption = False,
) -> None:
    """Export rubrics for graphforge.export.reward.load_rubric_reward (GRPO) and the matching prompts."""
    from graphforge.context import open_context
    from graphforge.export.writer import ensure_out_dir
    from graphforge.stages import export_rubrics

    ensure_out_dir(out)
    with open_context() as ctx, working("rubrics export"):
        result = export_rubrics.run(
            ctx, export_rubrics.ExportRubricsParams(out_dir=out, only_admitted=only_admitted,
                                                    reviewed_only=reviewed_only))
        note_if_idle(ctx.graph, "export rubrics")
    emit(result, as_json, "Rubrics export")


def verify_cmd(
    file: Annotated[Path, typer.Argument(help="An exported .jsonl or .parquet file.", exists=True,
                                         dir_okay=False)],
    sample: Annotated[int | None, typer.Option("--sample", help="Replay N random rows.", min=1)] = None,
    all_rows: Annotated[bool, typer.Option("--all", help="Replay every row (the default).")] = False,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the --sample draw.")] = 0,
    as_json: JsonOption = False,
) -> None:
    """Replay exported rows through the agent's tools in a fresh copy of each workspace; report mismatches.

    A row fails when a message holds a placeholder instead of content, a tool call returns something other
    than what was recorded, a deliverable the replay writes differs from the judged one, or the replayed
    deliverables get another Q when judged again. Exit 1 when any row fails."""
    from graphforge.context import open_context
    from graphforge.errors import ConfigError
    from graphforge.export.verify import verify_file

    if sample is not None and all_rows:
        raise ConfigError("--sample and --all: pick one")
    with open_context() as ctx, working("replaying rows"):
        report = verify_file(ctx.graph, file, sample=sample, seed=seed)
    data = report.as_dict()
    if as_json:
        import json

        typer.echo(json.dumps(data))
    else:
        typer.echo(f"{file}: replayed {report.checked} of {report.rows} rows; {report.passed} passed, "
                   f"{len(report.failures)} failed")
        for c in report.failures:
            typer.echo(f"  {c.trajectory_id}:")
            for p in c.problems:
                typer.echo(f"    - {p}")
    if report.failures:
        raise typer.Exit(1)


def list_cmd(
    kind: Annotated[ExportKind | None, typer.Option("--kind", help="Only exports of this kind.")] = None,
    as_json: JsonOption = False,
) -> None:
    """List Export nodes: kind, arm, rows, audit, override, folder (same as `graphforge list exports`)."""
    from graphforge.cli.listing import list_exports_cmd

    list_exports_cmd(kind=kind, wide=False, as_json=as_json)

"""CLI commands of the judging area: oracle rollouts, revision, judging, admission, judge sensitivity."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from graphforge.cli.common import JsonOption, choice, console, emit, print_fields, say, working
from graphforge.cli.listing import require_known
from graphforge.cli.sharding import ShardOption
from graphforge.cli.status import note_if_idle

if TYPE_CHECKING:
    from graphforge.stages.revise_specs import ReviseSpecsResult

OutOption = Annotated[Path, typer.Option("--out", help="Folder for deliverables and reports.")]


def rollout_oracle_cmd(
    spec: Annotated[str | None, typer.Option(
        "--spec", help="Spec id to solve, e.g. 'recon-q3@v1' (default: every current spec).")] = None,
    inject: Annotated[
        list[str] | None,
        typer.Option(
            "--inject",
            help="Inject an error (repeatable): wrong_number, missing_deliverable, missing_sheet, "
            "broken_citation, confuser, prompt_injection, repeated_calls, tool_failures.",
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed (part of the trajectory id).")] = 0,
    read_chars: Annotated[int, typer.Option(
        "--read-chars", min=1, help="read_file page size of the demonstration (the agent loop's).")] = 20_000,
    slips: Annotated[float, typer.Option(
        min=0.0, max=1.0, help="Chance that a demonstration asks once for a misremembered file name and "
        "recovers from the tool's answer (part of the trajectory id when above 0).")] = 0.0,
    out: OutOption = Path("out"),
    shard: ShardOption = None,
    as_json: JsonOption = False,
) -> None:
    """Solve a compiled spec with the rule-based graph ORACLE (not a model): real XLSX/DOCX/MD outputs."""
    from graphforge.context import open_context
    from graphforge.oracle import InjectKind
    from graphforge.sharding import parse_shard
    from graphforge.stages import rollout_oracle

    kinds = [choice(InjectKind, k, "--inject") for k in inject or []]
    params = rollout_oracle.RolloutOracleParams(spec_id=spec, inject=kinds, seed=seed, read_chars=read_chars,
                                                slips=slips, shard=parse_shard(shard))
    with open_context(out_dir=out) as ctx, working(f"oracle solving {spec or 'all specs'}"):
        require_known(ctx.graph, "spec", spec, "--spec")
        result = rollout_oracle.run(ctx, params)
        note_if_idle(ctx.graph, "rollout oracle")
    emit(result, as_json, title=f"Oracle rollouts of {spec or 'every current spec'}")


def revise_cmd(
    spec: Annotated[
        list[str] | None, typer.Option("--spec", help="Spec id (repeatable); default: every current spec.")
    ] = None,
    rerun: Annotated[str, typer.Option(
        help="Re-run a changed statement with: auto (teacher with a chat model, else oracle) | teacher | "
             "oracle | none.")] = "auto",
    no_llm: Annotated[
        bool, typer.Option("--no-llm", help="Rule-based repairs only, even with a chat model.")
    ] = False,
    out: OutOption = Path("out"),
    shard: ShardOption = None,
    as_json: JsonOption = False,
) -> None:
    """Check specs deterministically and revise them once; reuse rollouts when the statement is unchanged."""
    from graphforge.context import open_context
    from graphforge.sharding import parse_shard
    from graphforge.stages import revise_specs

    if rerun not in ("auto", "teacher", "oracle", "none"):
        raise typer.BadParameter(f"{rerun!r} is not one of 'auto', 'teacher', 'oracle', 'none'",
                                 param_hint="'--rerun'")
    params = revise_specs.ReviseSpecsParams(spec_ids=spec or None, rerun=rerun, use_llm=not no_llm,
                                            shard=parse_shard(shard))
    with open_context(out_dir=out) as ctx, working(f"revising specs (shard {shard or 'all'})"):
        require_known(ctx.graph, "spec", spec, "--spec")
        result = revise_specs.run(ctx, params)
        note_if_idle(ctx.graph, "revise")
    emit(result, as_json, summary=revision_summary)


def revision_lines(result: ReviseSpecsResult) -> tuple[str, list[tuple[str, str]]]:
    """The human form of a revision run: a heading and one line per spec (what the reviser saw of each
    rollout stays in --json)."""
    heading = (f"Spec revision: {result.checked} spec(s) checked, {result.failing_checks} failing a check, "
               f"{result.revised} revised")
    lines: list[tuple[str, str]] = []
    for spec in result.specs:
        words = []
        if spec.problems:
            shown = "; ".join(spec.problems[:3]) + (f"; … {len(spec.problems) - 3} more"
                                                    if len(spec.problems) > 3 else "")
            words.append(f"{len(spec.problems)} problem(s): {shown}")
        else:
            words.append("checks pass")
        if spec.revised_spec_id:
            changed = f" (changed {', '.join(spec.changed)})" if spec.changed else ""
            words.append(f"revised as {spec.revised_spec_id} by {spec.reviser or 'rule-based'}{changed}")
        else:
            words.append("not revised")
        if spec.fallback:
            words.append(f"chat model not used: {spec.fallback}")
        if spec.rollout == "reused":
            words.append(f"rollouts reused ({len(spec.trajectory_ids) or 1})")
        elif spec.rollout == "rerun":
            words.append(f"re-run by {spec.rerun_by or 'the teacher'}")
        elif spec.rollout == "missing":
            words.append("no rollout to reuse or re-run")
        lines.append((spec.spec_id, "; ".join(words)))
    if result.reuse_rate is not None:
        rate = f"{result.reuse_rate:.0%} ({result.reused} reused, {result.rerun} re-run)"
        lines.append(("reuse rate", rate))
    if result.fallbacks:
        lines.append(("fallbacks", f"{result.fallbacks} spec(s) revised by rule-based repairs after the chat "
                                   "model's revision failed"))
    if result.shard:
        lines.append(("shard", result.shard))
    return heading, lines


def revision_summary(result: ReviseSpecsResult) -> None:
    heading, lines = revision_lines(result)
    print_fields(heading, lines)
    if result.specs:
        say("(--json adds what the reviser saw of each rollout: tool calls, errors, the judge's reasons)")


def judge_cmd(
    spec_ids: Annotated[list[str] | None, typer.Argument(
        metavar="SPEC", help="Only trajectories of these specs (the same as --spec).",
        show_default=False)] = None,
    arm: Annotated[str, typer.Option(help="anchored | unanchored | random")] = "anchored",
    spec: Annotated[
        list[str] | None, typer.Option("--spec", help="Only trajectories of these specs.")
    ] = None,
    trajectory: Annotated[
        list[str] | None, typer.Option("--trajectory", help="Only these trajectories.")
    ] = None,
    rejudge: Annotated[
        bool, typer.Option(help="Also re-judge admitted / rejected / discarded trajectories.")
    ] = False,
    seed: Annotated[int, typer.Option(help="Seed of the random arm.")] = 0,
    no_llm: Annotated[bool, typer.Option("--no-llm", help="Deterministic verifiers only.")] = False,
    shard: ShardOption = None,
    as_json: JsonOption = False,
) -> None:
    """Judge trajectories: deliverable checks (a loss skips the judge), anchored verifiers, Q each.

    Default: every trajectory waiting for a judgment. Name specs as arguments or with --spec.
    """
    from graphforge.context import open_context
    from graphforge.models.judge import JudgeArm
    from graphforge.sharding import parse_shard
    from graphforge.stages import judge_trajectories

    statuses = ["materialised", "judged"] + (["admitted", "rejected", "discarded"] if rejudge else [])
    chosen = choice(JudgeArm, arm, "--arm")
    specs = list(spec or []) + list(spec_ids or [])
    params = judge_trajectories.JudgeTrajectoriesParams(arm=chosen, spec_ids=specs or None,
                                                        trajectory_ids=trajectory or None, statuses=statuses,
                                                        seed=seed, use_llm=not no_llm,
                                                        shard=parse_shard(shard))
    with open_context() as ctx, working(f"judging ({arm})"):
        require_known(ctx.graph, "spec", spec, "--spec")
        require_known(ctx.graph, "spec", spec_ids, "SPEC")
        require_known(ctx.graph, "trajectory", trajectory, "--trajectory")
        result = judge_trajectories.run(ctx, params)
        idle = note_if_idle(ctx.graph, "judge")
    if not idle and not result.judged and not result.retry_later:
        say("note: judge: nothing to do: no trajectory " + ("of these specs " if specs or trajectory else "")
            + "is waiting for a judgment (materialised or judged); --rejudge judges admitted, rejected and "
            "discarded ones again", console)
    emit(result, as_json, title=f"Judgments ({arm})")


def admit_cmd(
    spec: Annotated[
        list[str] | None, typer.Option("--spec", help="Only trajectories of these specs.")
    ] = None,
    q_threshold: Annotated[
        float | None, typer.Option(help="Admit when Q > this (default GRAPHFORGE_ADMIT_Q_THRESHOLD or 0.90).")
    ] = None,
    arm: Annotated[str, typer.Option(help="Judgments of this arm decide.")] = "anchored",
    as_json: JsonOption = False,
) -> None:
    """Admit judged trajectories (Q > threshold, valid deliverables) and discard degenerate tool use."""
    from graphforge.context import open_context
    from graphforge.models.judge import JudgeArm
    from graphforge.stages import admit_trajectories

    chosen = choice(JudgeArm, arm, "--arm")
    params = admit_trajectories.AdmitTrajectoriesParams(arm=chosen, spec_ids=spec or None,
                                                        q_threshold=q_threshold)
    with open_context() as ctx, working("admitting"):
        require_known(ctx.graph, "spec", spec, "--spec")
        result = admit_trajectories.run(ctx, params)
        idle = note_if_idle(ctx.graph, "admit")
    if not idle and not result.decisions:
        say("note: admit: nothing to do: no judged trajectory " + ("of these specs " if spec else "")
            + f"is waiting for a decision (run `graphforge judge --arm {chosen.value}` after new rollouts)",
            console)
    emit(result, as_json, title="Admission")


def sensitivity_cmd(
    arm: Annotated[
        list[str] | None,
        typer.Option("--arm", help="Arms to test (repeatable; default anchored and unanchored)."),
    ] = None,
    spec: Annotated[
        list[str] | None, typer.Option("--spec", help="Only trajectories of these specs.")
    ] = None,
    trajectory: Annotated[
        list[str] | None, typer.Option("--trajectory", help="Only these trajectories.")
    ] = None,
    no_llm: Annotated[bool, typer.Option("--no-llm", help="Deterministic verifiers only.")] = False,
    max_trajectories: Annotated[
        int | None,
        typer.Option("--max-trajectories", min=1,
                     help="Study at most this many trajectories (the first by spec and id)."),
    ] = None,
    max_cases_per_kind: Annotated[
        int | None,
        typer.Option("--max-cases-per-kind", min=1,
                     help="Per trajectory and arm, at most this many cases of each perturbation."),
    ] = None,
    out: OutOption = Path("out"),
    as_json: JsonOption = False,
) -> None:
    """Perturb admitted deliverables (delete sheet, corrupt row, change number, break citation); re-judge."""
    from graphforge.context import open_context
    from graphforge.models.judge import JudgeArm
    from graphforge.stages import judge_sensitivity

    arms = [choice(JudgeArm, a, "--arm") for a in arm] if arm else [JudgeArm.ANCHORED, JudgeArm.UNANCHORED]
    params = judge_sensitivity.JudgeSensitivityParams(arms=arms, spec_ids=spec or None,
                                                      trajectory_ids=trajectory or None, use_llm=not no_llm,
                                                      max_trajectories=max_trajectories,
                                                      max_cases_per_kind=max_cases_per_kind)
    with open_context(out_dir=out) as ctx, working("perturbing and re-judging"):
        require_known(ctx.graph, "spec", spec, "--spec")
        require_known(ctx.graph, "trajectory", trajectory, "--trajectory")
        result = judge_sensitivity.run(ctx, params)
    if as_json:
        emit(result, as_json)
    else:
        typer.echo(result.table)
        typer.echo(
            f"\n{result.cases} cases on {result.trajectories} trajectories; report in {result.report_dir}"
        )
    if result.refused:  # the judge gave no verdict at all: no score exists, exit 1 with the reason
        from graphforge.errors import JudgeError

        raise JudgeError(result.refused)
    if not result.cases:  # nothing was perturbed and scored: the study measured nothing
        typer.echo("error: no case could be scored: no admitted (or correct oracle) trajectory with "
                   "deliverables to perturb; run `graphforge rollout oracle`, `judge` and `admit` first",
                   err=True)
        raise typer.Exit(1)

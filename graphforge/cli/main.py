"""Entry point: builds the command tree (every group registered here) and turns GraphforgeError into
one line and exit 1."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from typing import Any

import typer
from pydantic import ValidationError

try:  # typer vendors click as typer._click since 0.2x; its usage errors are these classes
    from typer._click.exceptions import ClickException, NoArgsIsHelpError, UsageError
except ImportError:  # pragma: no cover - older typer on top of click
    from click.exceptions import ClickException, NoArgsIsHelpError, UsageError  # type: ignore[assignment]

from graphforge.cli import (
    audit,
    browser,
    common,
    db,
    demo,
    evaluation,
    evidence_specs,
    export,
    judging,
    listing,
    llm,
    load,
    load_many,
    project,
    review,
    rollouts,
    seeds,
    status,
)
from graphforge.errors import GraphforgeError

Command = Callable[..., Any]


def build_app() -> typer.Typer:
    """The whole command tree: every group and command is registered here and nowhere else.

    Command modules only define functions; importing one registers nothing.
    """
    app = typer.Typer(no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
                      help="GraphForge: verifiable agent-training tasks from real office files, in Neo4j.")
    app.callback()(common.root_options)
    # (name, help, sub-commands, the group's own callback: `graphforge judge` judges by itself)
    groups: list[tuple[str, str, list[tuple[str, Command]], Command | None]] = [
        ("db", "Run and migrate Neo4j (managed local server or your own).", [
            ("start", db.start_cmd), ("stop", db.stop_cmd), ("status", db.status_cmd),
            ("migrate", db.migrate_cmd), ("counts", db.counts_cmd), ("reset", db.reset_cmd)], None),
        ("project", "Keep graphs apart: each project is its own Neo4j; `project use` switches.", [
            ("new", project.new_cmd), ("list", project.list_cmd), ("use", project.use_cmd),
            ("show", project.show_cmd)], None),
        ("load", "Load sources into Neo4j: O*NET, labels, workspaces, trajectories, benchmarks.", [
            ("onet", load.load_onet_cmd), ("digital", load.load_digital_cmd),
            ("taxonomy-sample", load.taxonomy_sample_cmd), ("workspace", load.load_workspace_cmd),
            ("workspaces", load_many.load_workspaces_cmd),
            ("trajectories", load.load_trajectories_cmd), ("benchmark", load.load_benchmark_cmd)], None),
        ("seeds", "Build seed tuples, select them by coverage gain, fit them to a workspace.", [
            ("vocab", seeds.vocab_cmd), ("build", seeds.build_cmd), ("select", seeds.select_cmd),
            ("suggest", seeds.suggest_cmd), ("assign", seeds.assign_cmd)], None),
        ("evidence", "Extract facts and their dependencies from workspaces.", [
            ("build", evidence_specs.evidence_build_cmd)], None),
        ("specs", "Compile evidence graphs into anchored task specs.", [
            ("compile", evidence_specs.specs_compile_cmd), ("show", evidence_specs.specs_show_cmd)], None),
        ("rollout", "Run teacher agents on compiled specs.", [
            ("oracle", judging.rollout_oracle_cmd), ("run", rollouts.rollout_run_cmd)], None),
        ("audit", "Audit training data against evaluation benchmarks.", [
            ("contamination", audit.contamination_cmd)], None),
        ("review", "Human review of specs in Label Studio: export a review project, import the verdicts.", [
            ("export", review.export_cmd), ("import", review.import_cmd), ("status", review.status_cmd)],
         None),
        ("export", "Export admitted trajectories for the trainer.", [
            ("sft", export.sft_cmd), ("rft", export.rft_cmd), ("rubrics", export.rubrics_cmd),
            ("verify", export.verify_cmd), ("list", export.list_cmd)], None),
        ("eval", "Bradley-Terry Elo, win rates, judge sensitivity.", [
            ("elo", evaluation.elo_cmd), ("winrate", evaluation.winrate_cmd), ("run", evaluation.run_cmd),
            ("compare", evaluation.compare_cmd), ("sample-benchmark", evaluation.sample_benchmark_cmd),
            ("sample", evaluation.sample_cmd), ("sensitivity", judging.sensitivity_cmd)], None),
        ("report", "HTML reports with plots: coverage, corpus.", [
            ("corpus", evaluation.report_corpus_cmd), ("coverage", seeds.coverage_cmd)], None),
        ("llm", "Run a local chat model (SmolLM2-135M-Instruct, llama-cpp-python) on 127.0.0.1.", [
            ("start", llm.start_cmd), ("stop", llm.stop_cmd), ("status", llm.status_cmd)], None),
        ("list", "List what the graph holds: specs, seeds, workspaces, trajectories, exports, benchmarks "
                 "(ids to pass to other commands).", [
            ("specs", listing.list_specs_cmd), ("seeds", listing.list_seeds_cmd),
            ("workspaces", listing.list_workspaces_cmd), ("trajectories", listing.list_trajectories_cmd),
            ("exports", listing.list_exports_cmd), ("benchmarks", listing.list_benchmarks_cmd)], None),
    ]
    for name, help_text, commands, callback in groups:
        group = typer.Typer(no_args_is_help=callback is None, help=help_text)
        if callback is not None:
            group.callback(invoke_without_command=True)(callback)
        for command, fn in commands:
            group.command(command)(fn)
        app.add_typer(group, name=name)
    for command, fn in (("demo", demo.demo_cmd), ("status", status.status_cmd),
                        ("revise", judging.revise_cmd), ("judge", judging.judge_cmd),
                        ("admit", judging.admit_cmd), ("browser", browser.browser_cmd)):
        app.command(command)(fn)
    return app


app = build_app()


def one_line(text: str) -> str:
    """Collapse a message onto one line (the CLI's promise: one 'error:' line)."""
    return " ".join(str(text).split())


# The validation library's wording for a bad option value, and what the CLI says instead.
_PLAIN = (
    (re.compile(r"Input should be a valid integer(, [^;]*)?"), "not a whole number"),
    (re.compile(r"Input should be a valid number(, [^;]*)?"), "not a number"),
    (re.compile(r"Input should be a valid boolean(, [^;]*)?"), "not true or false"),
    (re.compile(r"Input should be greater than or equal to (\S+)"), r"must be at least \1"),
    (re.compile(r"Input should be less than or equal to (\S+)"), r"must be at most \1"),
    (re.compile(r"Input should be greater than (\S+)"), r"must be more than \1"),
    (re.compile(r"Input should be less than (\S+)"), r"must be less than \1"),
    (re.compile(r"Input should be (.+)"), r"must be \1"),
    (re.compile(r"Value error, "), ""),
)


def plain(text: str) -> str:
    """A bad-value message in the CLI's words (no validation-library phrasing)."""
    for pattern, replacement in _PLAIN:
        text = pattern.sub(replacement, text)
    return text


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit status (0 success, 1 error with a one-line message)."""
    args = list(sys.argv[1:] if argv is None else argv)
    verbose = "--verbose" in args or os.environ.get("GRAPHFORGE_VERBOSE") == "1"
    args = [a for a in args if a != "--verbose"]
    try:
        # Not standalone: usage errors (bad option values, unknown options) come back to us as exceptions
        # and are printed as one line with exit 1, like every other error.
        code = app(args=args, prog_name="graphforge", standalone_mode=False)
        return code if isinstance(code, int) else 0
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except NoArgsIsHelpError as exc:
        # `graphforge` or `graphforge GROUP` alone: typer has printed the help that was asked for.
        del exc
        return 0
    except ClickException as exc:
        if verbose:
            raise
        where = ""
        if isinstance(exc, UsageError) and exc.ctx is not None:
            where = exc.ctx.command_path.removeprefix("graphforge").strip()
        typer.echo(f"error: {where + ': ' if where else ''}{one_line(plain(exc.format_message()))}", err=True)
        return 1
    except typer.Abort:
        typer.echo("error: aborted", err=True)
        return 1
    except GraphforgeError as exc:
        if verbose:
            raise
        typer.echo(f"error: {one_line(str(exc))}", err=True)
        return 1
    except ValidationError as exc:
        # Stage params validate the options a command passes on; a bad value is a usage error.
        if verbose:
            raise
        problems = "; ".join(f"--{'.'.join(str(p) for p in e['loc']).replace('_', '-')}: {plain(e['msg'])}"
                             for e in exc.errors())
        typer.echo(f"error: invalid option value: {one_line(problems)}", err=True)
        return 1
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        return 130


if __name__ == "__main__":
    sys.exit(main())

"""The CLI's promise, for every command: a bad option value or an unknown id is one 'error:' line, exit 1.

The walk covers every command registered on the app (so a new command is covered the day it lands) and
every option of it: numbers get a non-number, choices a word outside them, existing-path options a path
that does not exist, id options an id the graph does not hold. Options where no value is wrong (free
names, output folders, flags) are listed with the reason, and the list is checked against the commands so
it cannot go stale. Runs against the real test Neo4j because unknown ids are looked up there.
"""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
import typer

from graphforge.cli.main import app, main
from graphforge.settings import GraphforgeSettings

UNKNOWN_ID = "no-such-id-in-this-graph"
# (command path, option) whose value names something that must exist in the graph.
ID_OPTIONS = {"--spec", "--trajectory", "--workspace", "--seed", "--benchmark", "--model"}
# Options where no value is a bad value: output folders (created), free names, seeds of randomness...
FREE = {
    "--out": "an output folder: created when missing",
    "--name": "a new benchmark's name",
    "--release": "an O*NET release label as the user writes it",
    "--judge": "a judge name filter over judgments, any string",
    "--anchor": "NAME=RATING; a bare NAME means 1667",
    "--a": "a player name in the comparison file",
    "--b": "a player name in the comparison file",
    "--by": "a task attribute of the comparison file",
    "--occupation": "filter; checked only when nothing matches",
    "--pattern": "filter; checked only when nothing matches",
    "--format": "checked by the trajectory importer per file",
    "--source-url": "free text recorded on the workspace",
    "--license": "free text recorded on the workspace",
    "--workspace-id": "the id a new workspace gets",
    "--judge-model": "a model name the chat server serves",
    "--served-model": "a model name the chat server serves",
    "--judge-api-key-env": "the name of an environment variable",
    "--api-key-env": "the name of an environment variable",
    "--system-prompt": "free text",
    "--player": "a player name for the comparison",
    "--task": "a task filter of the evaluation set",
    "--url": "a Label Studio server's address; checked when the command connects to it",
    "--token": "a Label Studio API token; checked by the server when the command connects",
    "--title": "a new review project's title, free text",
}
# String options whose value is one of a fixed set, checked in the command body.
CHOICE_IN_BODY = {"--arm", "--method", "--inject", "--backend", "--rerun", "--extractor", "--compiler",
                  "--family", "--status", "--coverage-from", "--coverage-level"}
# String options with a format checked in the command body, and a value outside it.
MALFORMED = {"--shard": "2/2",  # shard indexes count from 0: 2/2 names a third shard of two
             "--project": "Bad Name"}  # project names are lowercase letters, digits, '-' and '_'
# Commands the walk does not run with an unknown id (they would start long work or a server first).
NO_ID_RUN: set[str] = {"demo", "llm"}


def _commands(group: Any, prefix: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    found = []
    for name, command in sorted(group.commands.items()):
        path = prefix + (name,)
        if hasattr(command, "commands") and command.commands:
            found += _commands(command, path)
            if not getattr(command, "invoke_without_command", False):
                continue
        found.append((path, command))
    return found


def _required_values(command: Any, tmp: Path) -> list[str]:
    """Plausible values for the command's required arguments and options, so parsing reaches the option."""
    args: list[str] = []
    for param in command.params:
        if not param.required:
            continue
        value = _good_value(param, tmp)
        if type(param).__name__.endswith("Option"):
            args += [param.opts[0], value]
        else:
            args.append(value)
    return args


def _annotation(param: Any) -> Any:
    descriptor = getattr(param, "type_descriptor", None)
    return descriptor.annotation if descriptor is not None else None


# Required string options checked in the body need a valid value, so that the error a case gets is the
# one about the option under test (an unknown --benchmark must not pass because --model is bad too).
GOOD = {"--arm": "anchored", "--model": "player=oracle"}


def _good_value(param: Any, tmp: Path) -> str:
    if param.opts and param.opts[0] in GOOD:
        return GOOD[param.opts[0]]
    kind = _annotation(param)
    if isinstance(kind, type) and issubclass(kind, Enum):
        return str(next(iter(kind)).value)
    if kind is int:
        return "1"
    if kind is float:
        return "0.5"
    if kind is Path:
        return str(tmp)
    return UNKNOWN_ID


def _bad_value(param: Any, option: str) -> str | None:
    kind = _annotation(param)
    if kind in (int, float):
        return "not-a-number"
    if isinstance(kind, type) and issubclass(kind, Enum):
        return "bogus-choice"
    if kind is Path and option != "--out":
        return "/no/such/path/anywhere"  # every input path must exist
    return None


def _cases(tmp: Path) -> tuple[list[tuple[str, list[str], str]], list[str]]:
    command_tree = typer.main.get_command(app)
    cases, skipped = [], []
    for path, command in _commands(command_tree):
        base = list(path)
        required = _required_values(command, tmp)
        for param in command.params:
            if (not type(param).__name__.endswith("Option") or param.is_flag
                    or param.name in ("help", "as_json")):
                continue
            option = param.opts[0]
            bad = _bad_value(param, option)
            if bad is None and option in CHOICE_IN_BODY:
                bad = "bogus-choice"
            if bad is None and option in MALFORMED:
                bad = MALFORMED[option]
            if bad is None and option in ID_OPTIONS and path[0] not in NO_ID_RUN:
                bad = UNKNOWN_ID
            if bad is None:
                if option not in FREE:
                    skipped.append(f"{' '.join(path)} {option}")
                continue
            rest = list(required)
            if option in rest:  # a required option: replace its plausible value with the bad one
                i = rest.index(option)
                del rest[i:i + 2]
            cases.append((f"{' '.join(path)} {option}", base + rest + [option, bad], bad))
    return cases, skipped


@pytest.fixture
def cli_env(monkeypatch: pytest.MonkeyPatch, settings: GraphforgeSettings, graph: object,
            tmp_path: Path) -> Path:
    monkeypatch.setenv("GRAPHFORGE_HOME", str(settings.home))
    monkeypatch.setenv("GRAPHFORGE_BOLT_PORT", str(settings.bolt_port))
    monkeypatch.setenv("GRAPHFORGE_HTTP_PORT", str(settings.http_port))
    monkeypatch.delenv("NEO4J_URI", raising=False)
    monkeypatch.chdir(tmp_path)  # anything a command writes lands here
    return tmp_path


def test_every_command_rejects_every_bad_option_value_with_one_error_line(
        cli_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases, unclassified = _cases(cli_env)
    assert not unclassified, f"options with no bad value and no reason in FREE: {unclassified}"
    assert len(cases) > 40  # the walk really reaches the commands
    failures = []
    for label, argv, bad in cases:
        try:
            code = main(argv)
        except BaseException as exc:  # a traceback is exactly what the promise rules out
            code = f"raised {type(exc).__name__}: {exc}"  # type: ignore[assignment]
        captured = capsys.readouterr()
        lines = captured.err.splitlines()  # blank lines count: "one line" means exactly one
        option = label.split()[-1]
        named = option in lines[0] or option.lstrip("-") in lines[0] or bad in lines[0] if lines else False
        ok = code == 1 and len(lines) == 1 and lines[0].startswith("error: ") and named
        if not ok:
            failures.append(f"{label}: exit {code}, stderr {captured.err.strip()[-300:]!r}")
    assert not failures, f"{len(failures)} of {len(cases)} cases broke the promise:\n" + "\n".join(failures)


def test_version_and_verbose_are_documented(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("graphforge ")
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "--verbose" in out and "--version" in out


def test_list_specs_json_returns_spec_ids(cli_env: Path, graph: Any,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    from graphforge.stores.specs import save_spec
    from tests.integration.test_spec_store import _spec  # a real compiled-spec fixture

    spec = _spec()
    save_spec(graph, spec)
    assert main(["list", "specs", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [s["spec_id"] for s in data["specs"]] == [spec.spec_id]
    assert main(["list", "specs", "--workspace", UNKNOWN_ID]) == 1
    assert UNKNOWN_ID in capsys.readouterr().err


def test_unknown_benchmark_is_refused_before_the_comparisons_are_read(
        cli_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    comparisons = cli_env / "comparisons.jsonl"
    row = {"task_id": "t1", "model_a": "x", "model_b": "y", "winner": "a"}
    comparisons.write_text(json.dumps(row) + "\n", encoding="utf-8")
    argv = ["eval", "winrate", str(comparisons), "--a", "x", "--b", "y", "--by", "covered"]
    assert main(argv + ["--benchmark", UNKNOWN_ID]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--benchmark" in err[0] and UNKNOWN_ID in err[0]
    # Without --by covered the option has no effect, which is said rather than ignored.
    assert main(["eval", "winrate", str(comparisons), "--a", "x", "--b", "y", "--benchmark", "gdpval"]) == 1
    assert "used only with --by covered" in capsys.readouterr().err


def test_list_benchmarks_json_returns_loaded_benchmarks(cli_env: Path, graph: Any,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    from graphforge.demo.sample.benchmark import write_eval_benchmark

    sample = write_eval_benchmark(cli_env / "bench")
    assert main(["list", "benchmarks", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["benchmarks"] == []
    assert main(["load", "benchmark", str(sample.root), "--name", sample.name, "--json"]) == 0
    capsys.readouterr()
    assert main(["list", "benchmarks", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["benchmarks"]
    assert [r["name"] for r in rows] == [sample.name]
    assert rows[0]["task_count"] > 0


def test_long_commands_show_progress_on_a_terminal(cli_env: Path, graph: Any,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    import io

    from rich.console import Console

    from graphforge.cli import common
    from graphforge.demo.sample.benchmark import write_eval_benchmark

    terminal = io.StringIO()
    monkeypatch.setattr(common, "console", Console(file=terminal, force_terminal=True, width=120))
    sample = write_eval_benchmark(cli_env / "bench")
    assert main(["load", "benchmark", str(sample.root), "--name", sample.name, "--json"]) == 0
    assert main(["report", "corpus", "--all", "--out", str(cli_env / "report"), "--json"]) == 0
    shown = terminal.getvalue()
    assert f"loading benchmark {sample.name}" in shown and "corpus report" in shown
    assert json.loads(capsys.readouterr().out.splitlines()[-1])  # stdout stays one JSON object per command


# Positional path arguments that name something the command writes (created when missing).
OUTPUT_ARGUMENTS = {"eval sample", "eval sample-benchmark", "export rft", "export rubrics", "export sft",
                    "load taxonomy-sample"}


def test_every_input_path_argument_that_does_not_exist_is_one_error_line(
        cli_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = "/no/such/input/anywhere"
    cases = []
    for path, command in _commands(typer.main.get_command(app)):
        label = " ".join(path)
        arguments = [p for p in command.params if not type(p).__name__.endswith("Option")]
        options: list[str] = []
        for param in command.params:
            if type(param).__name__.endswith("Option") and param.required:
                options += [param.opts[0], _good_value(param, cli_env)]
        for tested in arguments:
            if _annotation(tested) is not Path or label in OUTPUT_ARGUMENTS:
                continue
            values = []
            for param in arguments:
                values.append(missing if param is tested else _good_value(param, cli_env))
                if param is tested:
                    break
            cases.append((f"{label} {tested.name.upper()}", list(path) + values + options))
    assert len(cases) >= 8, cases  # load onet/workspace/trajectories/benchmark/digital, eval elo/winrate...
    failures = []
    for label, argv in cases:
        code = main(argv)
        lines = capsys.readouterr().err.splitlines()
        if not (code == 1 and len(lines) == 1 and lines[0].startswith("error: ") and missing in lines[0]):
            failures.append(f"{label}: exit {code}, stderr {lines!r}")
    assert not failures, "\n".join(failures)

"""CLI conventions: groups exist, errors are one line with exit 1, --json prints one object."""

from __future__ import annotations

import json

import pytest

from graphforge.cli.main import main


def test_every_group_is_registered(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for group in ("db", "load", "seeds", "evidence", "specs", "rollout", "judge", "audit", "export", "eval",
                  "report"):
        assert group in out


def test_graphforge_error_is_one_line_and_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["db", "reset"]) == 1  # refuses without --yes, before touching any server
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "--yes" in err and "\n" not in err


def test_unknown_command_is_exit_nonzero(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["no-such-command"]) != 0


def test_external_uri_without_password_is_a_config_error(monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("NEO4J_URI", "neo4j://db.example.invalid:7687")
    monkeypatch.delenv("NEO4J_PASSWORD", raising=False)
    assert main(["db", "status", "--json"]) == 1
    assert "NEO4J_PASSWORD" in capsys.readouterr().err


def test_json_output_is_one_object(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                   tmp_path: object) -> None:
    monkeypatch.setenv("GRAPHFORGE_HOME", str(tmp_path))
    monkeypatch.delenv("NEO4J_URI", raising=False)
    assert main(["db", "status", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["running"] is False and data["managed"] is True and data["password"] is None


def test_generated_passwords_never_look_like_options() -> None:
    from graphforge.graphdb.server import generate_password

    passwords = {generate_password() for _ in range(2000)}
    assert len(passwords) == 2000
    assert all(p[0].isalnum() and len(p) >= 8 for p in passwords)


def test_bad_option_value_is_one_line_not_a_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    # Stage params reject the value before any server is touched.
    assert main(["evidence", "build", "--extractor", "bogus"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: invalid option value: --extractor") and "\n" not in err
    assert main(["seeds", "select", "--n", "3", "--method", "bogus"]) == 1
    assert capsys.readouterr().err.strip().startswith("error: invalid option value: --method")
    # In the CLI's words, not the validation library's.
    assert main(["seeds", "select", "--n", "abc"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.endswith("'--n' / '-n': not a whole number") and "Input should" not in err
    assert main(["seeds", "select", "--n", "0"]) == 1
    assert capsys.readouterr().err.strip().endswith("must be at least 1")


@pytest.mark.parametrize("argv", [
    ["judge", "--arm", "bogus"],
    ["admit", "--arm", "bogus"],
    ["rollout", "oracle", "--spec", "x", "--inject", "bogus"],
    ["rollout", "oracle", "--slips", "2"],
    ["export", "rft", "out", "--arm", "bogus"],
    ["seeds", "build", "--backend", "bogus"],
    ["seeds", "select"],  # a missing required option
    ["export", "sft", "out", "--max-tokens", "many"],
    ["list", "trajectories", "--status", "bogus"],
    ["no-such-command"],
    ["judge", "--no-such-option"],
])
def test_usage_errors_are_one_error_line_and_exit_1(argv: list[str],
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    # Rejected while parsing or before any server is touched.
    assert main(argv) == 1
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"graphforge {version('graphforge')}"


def test_group_without_command_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for name in ("specs", "seeds", "workspaces", "trajectories", "exports"):
        assert name in out


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (["load", "workspace", ".", "--timeout", "-1"], "--timeout"),
        (["load", "workspace", ".", "--timeout", "0"], "--timeout"),
        (["load", "workspace", ".", "--max-file-mb", "0"], "--max-file-mb"),
        (["load", "workspace", ".", "--max-file-mb", "-5"], "--max-file-mb"),
        (["load", "workspaces", ".", "--timeout", "nan"], "--timeout"),
    ],
)
def test_bad_values_name_the_option_as_typed(
    argv: list[str], option: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Refused while the options are read, before any server is looked for.
    monkeypatch.setenv("NEO4J_URI", "bolt://127.0.0.1:1")
    monkeypatch.setenv("NEO4J_PASSWORD", "unused")
    assert main(argv) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "\n" not in err
    assert f"'{option}'" in err and "must be a number more than 0" in err
    assert "--timeout-s" not in err and "--max-file-bytes" not in err

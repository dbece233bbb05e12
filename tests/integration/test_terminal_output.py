"""What a user sees in a terminal, against the real test Neo4j (issue 27, items 3 and 4).

`COLUMNS=100 graphforge list seeds` on a real terminal (a pseudo-terminal here) splits no word of a long
occupation title; `specs show` prints JSON that parses; `graphforge browser` prints its URL on one line;
every stage on an empty graph says what it found nothing to do on and what to run first; `graphforge
status` says what the graph holds and the next command, on an empty graph and along the pipeline.
"""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from graphforge.cli.main import main
from graphforge.context import StageContext
from graphforge.demo.sample.workspace import generate_sample_workspace
from graphforge.settings import GraphforgeSettings
from graphforge.stages import build_evidence, compile_specs, load_workspace

pytestmark = pytest.mark.neo4j

CLI = [sys.executable, "-m", "graphforge.cli.main"]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
LONG_TITLES = [
    "Bookkeeping, Accounting, and Auditing Clerks of Municipal Water and Sewerage Authorities",
    "Telecommunications Equipment Installers and Repairers, Except Line Installers and Electromechanical "
    "Instrumentation Technicians",
    "Compliance Officers, Except Agriculture, Construction, Health and Safety, and Transportation",
]


@pytest.fixture
def cli_env(monkeypatch: pytest.MonkeyPatch, settings: GraphforgeSettings, graph: object,
            tmp_path: Path) -> dict[str, str]:
    """The test server for in-process commands and for the subprocesses (returned as their env)."""
    monkeypatch.setenv("GRAPHFORGE_HOME", str(settings.home))
    monkeypatch.setenv("GRAPHFORGE_BOLT_PORT", str(settings.bolt_port))
    monkeypatch.setenv("GRAPHFORGE_HTTP_PORT", str(settings.http_port))
    monkeypatch.delenv("NEO4J_URI", raising=False)
    monkeypatch.chdir(tmp_path)
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE")}
    return env


def _on_a_terminal(argv: list[str], env: dict[str, str], columns: int, until: str | None = None,
                   timeout: float = 120) -> str:
    """Run graphforge with its stdout on a pseudo-terminal of ``columns`` columns; the text it showed.

    With ``until``, stop the command once that text has appeared (for commands that serve until Ctrl-C)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([*CLI, *argv], stdin=subprocess.DEVNULL, stdout=slave, stderr=subprocess.PIPE,
                            env={**env, "COLUMNS": str(columns), "TERM": "xterm"}, close_fds=True)
    os.close(slave)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:  # the command closed the terminal (Linux: EIO)
                    break
                if not data:
                    break
                chunks.append(data)
                if until is not None and until in b"".join(chunks).decode("utf-8", "replace"):
                    break
            elif proc.poll() is not None:
                break
    finally:
        if proc.poll() is None:
            proc.terminate()
        _, err = proc.communicate(timeout=30)
        os.close(master)
    text = ANSI.sub("", b"".join(chunks).decode("utf-8", "replace")).replace("\r\n", "\n")
    assert until is not None or proc.returncode == 0, (proc.returncode, text, err)
    return text


def _json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict:
    assert main([*argv, "--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def _taxonomy_with_long_titles(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["load", "taxonomy-sample", str(folder)]) == 0
    capsys.readouterr()
    occupations = folder / "Occupation Data.txt"
    lines = occupations.read_text(encoding="utf-8").splitlines()
    for i, title in enumerate(LONG_TITLES, start=1):  # the first occupations get long titles
        code, _, description = lines[i].split("\t")
        lines[i] = "\t".join((code, title, description))
    occupations.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for argv in (["load", "onet", str(folder), "--sectors", str(folder / "sectors.csv")],
                 ["load", "digital", str(folder / "digital_labels.csv")], ["seeds", "vocab"],
                 ["seeds", "build", "--backend", "rule-based"], ["seeds", "select", "--n", "10"]):
        _json(argv, capsys)


def test_list_seeds_at_100_columns_splits_no_word(cli_env: dict[str, str], tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    _taxonomy_with_long_titles(tmp_path / "onet", capsys)
    rows = _json(["list", "seeds"], capsys)["seeds"]
    assert {r["occupation"] for r in rows} >= set(LONG_TITLES[:1])  # the long titles have seeds

    shown = _on_a_terminal(["list", "seeds"], cli_env, 100)
    lines = shown.splitlines()
    assert max(len(line) for line in lines) <= 100, max(lines, key=len)
    tokens = set(re.split(r"[\s│┃━─┿╇┼]+", shown))
    header = next(line for line in lines if "seed id" in line)
    assert "occupation" in header and "pattern" in header
    for row in rows:
        assert row["seed_id"] in tokens
        for key in ("occupation", "pattern", "input_family"):
            for word in str(row[key]).split():
                assert word in tokens, f"{word!r} of {row[key]!r} is split across lines"
    if "sectors" not in header:  # what did not fit is said, not silently left out
        assert "not shown at 100 columns" in shown and "--wide" in shown

    # Piped (not a terminal): one line per row, every column, nothing wrapped.
    assert main(["list", "seeds"]) == 0
    piped = capsys.readouterr().out
    assert all(title in piped for title in LONG_TITLES) and "sectors" in piped.splitlines()[1]


def _sample_spec(ctx: StageContext, tmp_path: Path) -> str:
    sample = generate_sample_workspace(tmp_path / "sample")
    load_workspace.run(ctx, load_workspace.LoadWorkspaceParams(
        root=sample.root, manifest=sample.manifest, jobs=1, use_llm_roles=False))
    build_evidence.run(ctx, build_evidence.BuildEvidenceParams(extractor="rule-based"))
    compiled = compile_specs.run(ctx, compile_specs.CompileSpecsParams(compiler="template"))
    return compiled.specs[0].spec_id


def test_specs_show_is_valid_json_on_a_narrow_terminal_and_in_a_pipe(
        cli_env: dict[str, str], ctx: StageContext, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    spec_id = _sample_spec(ctx, tmp_path)
    for extra in ([], ["--agent-view"]):
        assert main(["specs", "show", spec_id, *extra]) == 0
        piped = json.loads(capsys.readouterr().out)
        shown = json.loads(_on_a_terminal(["specs", "show", spec_id, *extra], cli_env, 60))
        assert shown == piped and shown["spec_id"] == spec_id
        assert len(shown["statement"]) > 60  # long enough that a console would have wrapped it
    assert main(["specs", "show", spec_id, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["spec_id"] == spec_id


def test_browser_prints_its_url_on_one_line(cli_env: dict[str, str], tmp_path: Path) -> None:
    shown = _on_a_terminal(["browser", "--no-open", "--out", str(tmp_path / "browser")], cli_env, 60,
                           until=":play ", timeout=120)
    urls = [line for line in shown.splitlines() if line.startswith("http") and "cmd=play" in line]
    assert len(urls) == 1, shown
    assert "graphforge.html" in urls[0] and "dbms=" in urls[0]  # the whole URL, start to end, one line
    assert any(line.startswith(":play http") and line.endswith("graphforge.html")
               for line in shown.splitlines())


EMPTY_GRAPH_STAGES = [
    (["seeds", "build"], 0, "graphforge load onet DIR"),
    (["evidence", "build"], 0, "graphforge load workspace DIR"),
    (["specs", "compile"], 0, "graphforge load workspace DIR"),
    (["rollout", "oracle"], 0, "graphforge load workspace DIR"),
    (["judge"], 0, "graphforge load workspace DIR"),
    (["admit"], 0, "graphforge load workspace DIR"),
    (["export", "sft", "out/sft", "--skip-audit"], 1, "graphforge load workspace DIR"),
    (["report", "coverage", "--out", "out/coverage"], 0, "graphforge load onet DIR"),
    (["revise"], 0, "graphforge load workspace DIR"),
]


@pytest.mark.parametrize("as_json", [False, True])
def test_every_stage_on_an_empty_graph_says_what_to_run_first(
        cli_env: dict[str, str], capsys: pytest.CaptureFixture[str], as_json: bool) -> None:
    for argv, code, first in EMPTY_GRAPH_STAGES:
        assert main(argv + (["--json"] if as_json else [])) == code, argv
        captured = capsys.readouterr()
        err = captured.err.strip().splitlines()
        assert len(err) == 1, (argv, err)
        said = "nothing to do" if code == 0 else "wrote 0 rows"
        assert said in err[0] and first in err[0], err[0]
        assert err[0].startswith("note: " if code == 0 else "error: "), err[0]
        if as_json:  # stdout stays one JSON object
            json.loads(captured.out)
        else:
            assert '{"' not in captured.out, captured.out


def test_status_on_an_empty_graph_and_along_the_pipeline(
        cli_env: dict[str, str], ctx: StageContext, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    empty = _json(["status"], capsys)
    assert empty["taxonomy"]["tasks"] == 0 and empty["workspaces"]["workspaces"] == 0
    assert empty["trajectories"] == {"total": 0, "by_status": {}}
    assert empty["next"][0]["command"] == "graphforge load onet DIR"
    assert main(["status"]) == 0
    human = capsys.readouterr().out
    assert "next: graphforge load onet DIR" in human and "taxonomy" in human and "{" not in human

    spec_id = _sample_spec(ctx, tmp_path)
    loaded = _json(["status"], capsys)
    assert loaded["workspaces"]["workspaces"] == 1 and loaded["workspaces"]["facts"] > 0
    assert loaded["specs"]["current"] == 1 and loaded["specs"]["current_criteria"] > 0
    assert loaded["next"][0]["command"] == "graphforge rollout oracle"

    _json(["rollout", "oracle", "--spec", spec_id], capsys)
    rolled = _json(["status"], capsys)
    assert rolled["trajectories"]["by_status"] == {"materialised": 1}
    assert rolled["next"][0]["command"] == "graphforge judge"

    judged = _json(["judge", spec_id], capsys)  # a spec id as an argument, like --spec
    assert judged["judged"] == 1
    assert _json(["status"], capsys)["next"][0]["command"] == "graphforge admit"

    _json(["admit"], capsys)
    assert main(["judge"]) == 0  # nothing waits for a judgment now: said, not silent
    assert "nothing to do" in capsys.readouterr().err
    done = _json(["status"], capsys)
    assert done["judgments"]["total"] == 1 and done["judgments"]["by_arm"] == {"anchored": 1}
    assert sum(done["trajectories"]["by_status"].values()) == 1
    assert main(["status"]) == 0
    human = capsys.readouterr().out
    assert "1 current" in human and "next: " in human


def test_revise_prints_a_summary_not_the_execution_log(
        cli_env: dict[str, str], ctx: StageContext, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    spec_id = _sample_spec(ctx, tmp_path)
    _json(["rollout", "oracle", "--spec", spec_id], capsys)
    assert main(["revise", "--rerun", "none"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Spec revision: 1 spec(s) checked") and spec_id in out
    assert len(out.splitlines()) < 10 and "call:" not in out and '{"' not in out
    data = _json(["revise", "--rerun", "none"], capsys)
    assert data["specs"][0]["execution"]  # the execution log stays in --json

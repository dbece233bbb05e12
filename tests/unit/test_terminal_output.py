"""Terminal output fits the width without breaking a word; summaries are words, not JSON; no command but
`db start` and the demo starts a server (no Neo4j needed here: the server check runs on a fresh home)."""

from __future__ import annotations

import io
import json
import re
import socket
from pathlib import Path

import pytest
from rich.console import Console

from graphforge.cli.common import describe, print_fields, say, short_hash
from graphforge.cli.listing import SEED_COLUMNS, SPEC_COLUMNS, TRAJECTORY_COLUMNS, WORKSPACE_COLUMNS
from graphforge.cli.main import main
from graphforge.cli.tables import Col, cell_text, fit_table, shorten_middle

LONG_OCCUPATIONS = [
    "Bookkeeping, Accounting, and Auditing Clerks",
    "Sales Representatives, Wholesale and Manufacturing, Except Technical and Scientific Products",
    "Telecommunications Equipment Installers and Repairers, Except Line Installers",
    "Electromechanical Equipment Assemblers and Instrumentation Technicians of Extraordinary Length",
]


def _seed_rows() -> list[dict[str, object]]:
    return [{"seed_id": f"{i:016x}", "selection_rank": i + 1, "soc_code": f"43-303{i}.00",
             "occupation": occ, "sectors": ["Finance and Accounting", "Administrative Support"],
             "task_type": "Prepare financial statements, reconciliations or regulatory reports",
             "pattern": "review, audit and compliance checking", "input_family": "spreadsheet",
             "workspaces": i} for i, occ in enumerate(LONG_OCCUPATIONS)]


def _render(table: object, width: int) -> str:
    out = io.StringIO()
    Console(file=out, width=width, color_system=None).print(table)
    return out.getvalue()


def _tokens(text: str) -> set[str]:
    return set(re.split(r"[\s│┃━─┿╇┼]+", text))


@pytest.mark.parametrize("width", [100, 80, 60])
def test_fitted_seed_table_breaks_no_word_and_fits(width: int) -> None:
    rows = _seed_rows()
    fitted = fit_table(rows, SEED_COLUMNS, width, "Seeds")
    text = _render(fitted.table, width)
    assert max(len(line) for line in text.splitlines()) <= width
    shown = [c for c in SEED_COLUMNS if c not in fitted.dropped]
    assert any(c.key == "occupation" for c in shown)  # what the user picks a seed by always stays
    tokens = _tokens(text)
    for row in rows:
        for col in shown:
            for word in cell_text(row[col.key], col.kind).split():
                assert word in tokens, f"{word!r} of {col.key} split or missing at width {width}"
    if fitted.dropped:
        note = fitted.footnote(width)
        assert note and all(c.title in note for c in fitted.dropped) and "--wide" in note


def test_wide_enough_shows_every_column_and_no_footnote() -> None:
    fitted = fit_table(_seed_rows(), SEED_COLUMNS, 400)
    assert fitted.dropped == [] and fitted.footnote(400) is None


def test_least_important_columns_go_first() -> None:
    fitted = fit_table(_seed_rows(), SEED_COLUMNS, 100)
    dropped = {c.key for c in fitted.dropped}
    assert "sectors" in dropped and "seed_id" not in dropped and "occupation" not in dropped


def test_ids_stay_whole_and_long_words_are_shortened_not_split() -> None:
    reason = "loss: judge not asked: brightwater_instruments_h1_2024_briefing.pptx: missing: not produced"
    rows = [{"trajectory_id": "oracle-3f8b12646f405530", "spec_id": "spec-658d2d0a8e6a@v1",
             "model": "oracle (rule-based)", "status": "rejected", "status_reason": reason, "steps": 7,
             "tokens": 0, "q_anchored": 0.0}]
    fitted = fit_table(rows, TRAJECTORY_COLUMNS, 100)
    text = _render(fitted.table, 100)
    assert "oracle-3f8b12646f405530" in text and "spec-658d2d0a8e6a@v1" in text
    assert "brightwater_instruments_h1_2024_briefing.pptx:" not in text  # longer than a word may be
    assert "…" in text and fitted.shortened and "shortened" in (fitted.footnote(100) or "")
    tokens = _tokens(text)
    assert all(word in tokens for word in ("loss:", "judge", "asked:", "missing:", "produced"))


def test_paths_are_shortened_from_the_middle_keeping_the_file_end() -> None:
    root = "/home/someone/projects/corpus/workspaces/department-of-labor/ws-2024-q3-budget"
    rows = [{"workspace_id": "ws-2024-q3-budget", "seed_id": "b0a57aaf1555f863", "files": 9,
             "invalid_files": 0, "spans": 53, "facts": 146, "specs": 1, "root": root}]
    fitted = fit_table(rows, WORKSPACE_COLUMNS, 90)
    text = _render(fitted.table, 90)
    assert max(len(line) for line in text.splitlines()) <= 90
    if not any(c.key == "root" for c in fitted.dropped):
        shown = next(t for t in _tokens(text) if "…" in t)
        assert shown.startswith("/home") and shown.endswith("budget")


def test_shorten_middle() -> None:
    assert shorten_middle("abcdefghij", 20) == "abcdefghij"
    assert shorten_middle("abcdefghij", 5) == "ab…ij"
    assert len(shorten_middle("x" * 100, 24)) == 24


def test_spec_table_keeps_spec_ids_whole_at_80() -> None:
    rows = [{"spec_id": "spec-658d2d0a8e6a@v1", "version": 1, "current": True,
             "workspace_id": "ws-sample-brightwater-h1-2024", "seed_id": "b0a57aaf1555f863", "criteria": 8,
             "trajectories": 4, "admitted": 2}]
    text = _render(fit_table(rows, SPEC_COLUMNS, 80).table, 80)
    assert "spec-658d2d0a8e6a@v1" in text and "yes" in text


def test_a_narrow_terminal_still_fits() -> None:
    cols = [Col("a_id", kind="id", keep=100), Col("name", keep=100)]
    rows = [{"a_id": "x" * 40, "name": "Supercalifragilistic expialidocious"}]
    text = _render(fit_table(rows, cols, 30).table, 30)
    assert max(len(line) for line in text.splitlines()) <= 30


def test_summaries_are_words_not_json() -> None:
    digest = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    files = describe([{"path": "sft.jsonl", "sha256": digest, "bytes": 0, "rows": 0}])
    assert "{" not in files and '"' not in files and "sft.jsonl" in files and "e3b0c442…b855" in files
    counts = describe({"data analysis and reporting": 28, "planning and scheduling": 7})
    assert counts == "data analysis and reporting: 28; planning and scheduling: 7"
    assert describe([]) == "none" and describe({}) == "none" and describe(True) == "yes"
    many = describe([f"id-{i}" for i in range(30)])
    assert many.endswith("… 18 more")
    assert short_hash("not-a-digest") == "not-a-digest"


def test_fields_wrap_at_words_and_keep_urls_on_one_line() -> None:
    out = io.StringIO()
    console = Console(file=out, width=60, color_system=None)
    url = "http://127.0.0.1:7474/browser/?dbms=bolt%3A%2F%2Fneo4j%40127.0.0.1%3A7687&cmd=play&arg=x"
    words = "Bookkeeping, Accounting, and Auditing Clerks " * 4
    print_fields("Title", [("occupation", words), ("open", url)], console)
    say(url, console)
    text = out.getvalue()
    lines = text.splitlines()
    assert sum(url in line for line in lines) == 2  # whole, once in the field and once alone
    assert url in lines
    tokens = set(text.split())
    assert {"Bookkeeping,", "Accounting,", "Auditing", "Clerks"} <= tokens
    assert all(len(line) <= 60 for line in lines if url not in line)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("argv", [["list", "specs"], ["status"], ["seeds", "build"], ["db", "counts"]])
def test_a_stopped_server_is_reported_and_never_started(argv: list[str], tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GRAPHFORGE_HOME", str(tmp_path / "home"))
    bolt = _free_port()
    monkeypatch.setenv("GRAPHFORGE_BOLT_PORT", str(bolt))
    monkeypatch.setenv("GRAPHFORGE_HTTP_PORT", str(_free_port()))
    monkeypatch.delenv("NEO4J_URI", raising=False)
    assert main(argv) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: Neo4j is not running")
    assert "`graphforge db start`" in err[0]
    assert not (tmp_path / "home" / "neo4j" / "run" / "neo4j.pid").exists()
    with socket.socket() as sock:  # nothing listens on the Bolt port: no server was started
        assert sock.connect_ex(("127.0.0.1", bolt)) != 0


def test_judge_is_a_command_whose_help_names_its_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["judge", "--help"]) == 0
    out = capsys.readouterr().out
    assert "[SPEC]..." in out and "--arm" in out and "--rejudge" in out


def test_status_json_shape_is_documented_by_the_model() -> None:
    from graphforge.graphdb.status import GraphStatus

    fields = set(GraphStatus.model_fields)
    assert {"taxonomy", "seeds", "workspaces", "specs", "trajectories", "judgments", "exports",
            "next"} <= fields
    json.dumps(GraphStatus.model_json_schema())

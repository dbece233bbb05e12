"""Win rates between two players: ties as half wins, either column order, split by a task attribute, CIs."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from graphforge.cli.main import main
from graphforge.demo.sample.comparisons import sample_rows, write_sample
from graphforge.errors import SourceFormatError
from graphforge.eval import winrate
from graphforge.eval.comparisons import comparisons_from_rows, read_comparisons

SFT, BASE = "sft-27b (openhands)", "base-27b (openhands)"


def _row(task: str, a: str, b: str, winner: str, covered: bool) -> dict[str, object]:
    return {"task_id": task, "model_a": a, "model_b": b, "winner": winner, "covered": covered}


def test_win_rate_counts_ties_half_and_reads_both_column_orders() -> None:
    rows = [
        _row("t1", "p", "q", "a", True),
        _row("t2", "q", "p", "b", True),
        _row("t3", "q", "p", "a", False),
        _row("t4", "p", "q", "tie", False),
        _row("t5", "p", "r", "a", False),
    ]
    result = winrate.win_rates(comparisons_from_rows(rows), "p", "q", by="covered", bootstrap=500, seed=1)
    overall, covered_false, covered_true = result.rows
    assert (overall.wins, overall.losses, overall.ties, overall.comparisons) == (2, 1, 1, 4)
    assert overall.win_rate == pytest.approx(2.5 / 4)
    assert covered_true.group == "covered=true" and covered_true.win_rate == 1.0
    assert covered_false.group == "covered=false" and covered_false.win_rate == pytest.approx(0.25)
    assert covered_true.ci_low == covered_true.ci_high == 1.0  # no variation to resample


def test_sample_split_matches_a_direct_count_and_cis_bracket_the_rate() -> None:
    rows = sample_rows()
    result = winrate.win_rates(comparisons_from_rows(rows), SFT, BASE, by="covered", bootstrap=2000, seed=3)
    frame = pl.DataFrame(rows).with_columns(
        (pl.col("model_a") + " (" + pl.col("scaffold_a") + ")").alias("pa"),
        (pl.col("model_b") + " (" + pl.col("scaffold_b") + ")").alias("pb"))
    for row in result.rows:
        part = frame.filter(((pl.col("pa") == SFT) & (pl.col("pb") == BASE))
                            | ((pl.col("pa") == BASE) & (pl.col("pb") == SFT)))
        if row.group != "overall":
            part = part.filter(pl.col("covered") == (row.group == "covered=true"))
        sft_first = part["pa"] == SFT
        won = ((part["winner"] == "a") & sft_first) | ((part["winner"] == "b") & ~sft_first)
        expected = (won.sum() + 0.5 * (part["winner"] == "tie").sum()) / part.height
        assert row.comparisons == part.height
        assert row.win_rate == pytest.approx(expected)
        assert row.ci_low <= row.win_rate <= row.ci_high and row.ci_high - row.ci_low > 0
    assert [r.group for r in result.rows] == ["overall", "covered=false", "covered=true"]


def test_unknown_player_or_attribute_is_named() -> None:
    cmp = comparisons_from_rows([_row("t1", "p", "q", "a", True)])
    with pytest.raises(SourceFormatError, match="no player named 'x'.*p, q"):
        winrate.win_rates(cmp, "x", "q")
    with pytest.raises(SourceFormatError, match="no task attribute 'sector'.*covered"):
        winrate.win_rates(cmp, "p", "q", by="sector")


def test_players_never_compared_directly_is_an_error() -> None:
    cmp = comparisons_from_rows([_row("t1", "p", "q", "a", True), _row("t2", "q", "r", "a", True)])
    with pytest.raises(SourceFormatError, match="never compared directly"):
        winrate.win_rates(cmp, "p", "r")


def test_cli_winrate_and_elo_write_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "cmp.jsonl"
    assert main(["eval", "sample", str(path), "--json"]) == 0
    assert len(read_comparisons(path)) == len(sample_rows())
    capsys.readouterr()
    assert (
        main(
            [
                "eval",
                "winrate",
                str(path),
                "--a",
                SFT,
                "--b",
                BASE,
                "--by",
                "covered",
                "--coverage-from",  # the sample file's own column (the default asks Neo4j)
                "file",
                "--bootstrap",
                "200",
                "--out",
                str(tmp_path / "w"),
            ]
        )
        == 0
    )
    assert (tmp_path / "w" / "winrate.html").exists()
    assert main(["eval", "elo", str(write_sample(tmp_path / "c.csv")), "--anchor",
                 "anchor-model (openhands)=1667", "--bootstrap", "100", "--out", str(tmp_path / "e")]) == 0
    out = capsys.readouterr().out
    assert "1667.0" in out and (tmp_path / "e" / "elo.png").exists()
    assert main(["eval", "elo", str(path), "--anchor", "nobody=1667", "--bootstrap", "0"]) == 1
    assert "anchor 'nobody'" in capsys.readouterr().err

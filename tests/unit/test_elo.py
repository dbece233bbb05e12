"""Bradley-Terry Elo: recovers known strengths, anchors exactly, ties as half wins, exact bootstrap."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.stats import spearmanr

from graphforge.demo.sample.comparisons import (
    SAMPLE_ANCHOR,
    SAMPLE_PLAYERS,
    TruePlayer,
    generate_comparisons,
    sample_rows,
    write_comparisons,
    write_sample,
)
from graphforge.errors import SourceFormatError
from graphforge.eval import elo
from graphforge.eval.comparisons import comparisons_from_rows, pair_cells, read_comparisons

PLAYERS = [TruePlayer(f"m{k}", None, 1200.0 + 90.0 * k) for k in range(8)]


def _reference_theta(rows: list[dict[str, object]], players: list[str], ridge: float) -> np.ndarray:
    """A plain per-comparison fit of the same objective with scipy (no aggregation, no Newton)."""
    index = {p: k for k, p in enumerate(players)}
    a = np.array([index[str(r["model_a"])] for r in rows])
    b = np.array([index[str(r["model_b"])] for r in rows])
    score = np.array([{"a": 1.0, "b": 0.0, "tie": 0.5}[str(r["winner"])] for r in rows])

    def f(theta: np.ndarray) -> tuple[float, np.ndarray]:
        d = theta[a] - theta[b]
        p = 1.0 / (1.0 + np.exp(-d))
        value = -(score * np.log(p) + (1 - score) * np.log(1 - p)).sum() + 0.5 * ridge * theta @ theta
        g = np.zeros_like(theta)
        np.add.at(g, a, p - score)
        np.add.at(g, b, score - p)
        return float(value), g + ridge * theta

    return np.asarray(minimize(f, np.zeros(len(players)), jac=True, method="BFGS", options={"gtol": 1e-10}).x)


def test_fitted_elo_recovers_the_true_order_and_anchor_is_exact() -> None:
    rows = generate_comparisons(PLAYERS, tasks=400, pairs_per_task=6, seed=3)
    result = elo.fit_elo(comparisons_from_rows(rows), anchor="m3", bootstrap=200, seed=1)
    fitted = {r.model: r.elo for r in result.ratings}
    true = {p.name: p.elo for p in PLAYERS}
    names = sorted(true)
    rho = spearmanr([fitted[n] for n in names], [true[n] for n in names]).statistic
    assert rho == pytest.approx(1.0)
    assert fitted["m3"] == 1667.0
    anchor_row = next(r for r in result.ratings if r.model == "m3")
    assert anchor_row.ci_low == anchor_row.ci_high == 1667.0
    assert [r.rank for r in result.ratings] == list(range(1, len(PLAYERS) + 1))


def test_anchor_rating_and_scale_follow_the_formula() -> None:
    rows = generate_comparisons(PLAYERS[:4], tasks=200, pairs_per_task=3, seed=5)
    cmp = comparisons_from_rows(rows)
    result = elo.fit_elo(cmp, anchor="m0", anchor_rating=1500.0, bootstrap=0)
    cells = pair_cells(cmp)
    theta = elo.fit_theta(cells)
    a = cells.players.index("m0")
    for r in result.ratings:
        k = cells.players.index(r.model)
        assert r.elo == pytest.approx(1500.0 + 400.0 / math.log(10.0) * (theta[k] - theta[a]), abs=1e-9)
    assert next(r.elo for r in result.ratings if r.model == "m0") == 1500.0


def test_agrees_with_a_simple_per_comparison_reference_fit() -> None:
    rows = generate_comparisons(PLAYERS[:5], tasks=150, pairs_per_task=4, seed=11, tie_strength=0.6)
    cmp = comparisons_from_rows(rows)
    cells = pair_cells(cmp)
    ours = elo.to_elo(elo.fit_theta(cells, ridge=1e-4), 0, 1667.0)
    ref = elo.to_elo(_reference_theta(rows, cells.players, ridge=1e-4), 0, 1667.0)
    assert np.abs(ours - ref).max() < 0.01


def test_a_tie_counts_as_half_a_win() -> None:
    # Two ties between x and y weigh exactly as one win each way: same scores, same strengths.
    rest = [{"task_id": "t3", "model_a": "y", "model_b": "z", "winner": "a"},
            {"task_id": "t4", "model_a": "y", "model_b": "z", "winner": "a"},
            {"task_id": "t5", "model_a": "z", "model_b": "y", "winner": "a"}]
    ties = [{"task_id": f"t{k}", "model_a": "x", "model_b": "y", "winner": "tie"} for k in (1, 2)]
    split = [{"task_id": "t1", "model_a": "x", "model_b": "y", "winner": "a"},
             {"task_id": "t2", "model_a": "x", "model_b": "y", "winner": "b"}]
    with_ties = elo.fit_theta(pair_cells(comparisons_from_rows(ties + rest)))
    with_wins = elo.fit_theta(pair_cells(comparisons_from_rows(split + rest)))
    assert np.allclose(with_ties, with_wins, atol=1e-9)
    assert with_ties[0] == pytest.approx(with_ties[1], abs=1e-3)  # tied: equal strength up to the ridge
    assert with_ties[1] > with_ties[2]  # y beat z 2 of 3


def test_batched_bootstrap_equals_refitting_each_resample_alone() -> None:
    rows = generate_comparisons(PLAYERS[:6], tasks=120, pairs_per_task=5, seed=2)
    cells = pair_cells(comparisons_from_rows(rows))
    theta = elo.fit_theta(cells)
    counts = np.concatenate(list(elo.resample_counts(cells, 50, seed=9, chunk=20)))
    batched = np.concatenate(list(elo.bootstrap_theta(cells, 50, seed=9, start=theta)))
    for k in (0, 17, 49):
        wins, n = cells.scores(counts[k])
        alone = elo.newton(cells.i, cells.j, wins[None], n[None], elo.DEFAULT_RIDGE, np.zeros((1, 6)))[0]
        assert np.abs(elo.to_elo(alone, 0, 0) - elo.to_elo(batched[k], 0, 0)).max() < 1e-6
    assert counts.sum(axis=(1, 2)).tolist() == [cells.n_comparisons] * 50


def test_bootstrap_cis_contain_the_point_estimate_and_are_seeded() -> None:
    cmp = comparisons_from_rows(sample_rows())
    first = elo.fit_elo(cmp, anchor=SAMPLE_ANCHOR, bootstrap=300, seed=4)
    again = elo.fit_elo(cmp, anchor=SAMPLE_ANCHOR, bootstrap=300, seed=4)
    assert first.ratings == again.ratings
    for r in first.ratings:
        assert r.ci_low <= r.elo <= r.ci_high
        if r.model != SAMPLE_ANCHOR:
            assert r.ci_high - r.ci_low > 0
    true = {p.name: p.elo for p in SAMPLE_PLAYERS}
    best = first.ratings[0].model
    assert true[best] == max(true.values())


def test_disconnected_comparison_graph_names_the_components() -> None:
    rows = [{"task_id": "t1", "model_a": "a1", "model_b": "a2", "winner": "a"},
            {"task_id": "t2", "model_a": "a2", "model_b": "a1", "winner": "a"},
            {"task_id": "t3", "model_a": "b1", "model_b": "b2", "winner": "tie"}]
    with pytest.raises(SourceFormatError) as info:
        elo.fit_elo(comparisons_from_rows(rows), anchor="a1", bootstrap=0)
    message = str(info.value)
    assert "disconnected" in message and "{a1, a2}" in message and "{b1, b2}" in message


def test_unknown_anchor_is_an_error_listing_players() -> None:
    rows = [{"task_id": "t1", "model_a": "x", "model_b": "y", "winner": "a"}]
    with pytest.raises(SourceFormatError, match="anchor 'nobody'.*x, y"):
        elo.fit_elo(comparisons_from_rows(rows), anchor="nobody", bootstrap=0)


def test_undefeated_player_gets_a_warning() -> None:
    rows = [{"task_id": f"t{k}", "model_a": "x", "model_b": "y", "winner": "a"} for k in range(3)]
    rows.append({"task_id": "t9", "model_a": "y", "model_b": "z", "winner": "tie"})
    result = elo.fit_elo(comparisons_from_rows(rows), anchor="y", bootstrap=10)
    assert any(w.startswith("x never lost") for w in result.warnings)


def test_bad_jsonl_line_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "cmp.jsonl"
    good = json.dumps({"task_id": "t1", "model_a": "x", "model_b": "y", "winner": "a"})
    path.write_text(good + "\n\n" + good + "\n{not json\n", encoding="utf-8")
    with pytest.raises(SourceFormatError) as info:
        read_comparisons(path)
    assert info.value.path == str(path) and "line 4" in str(info.value)


def test_bad_winner_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "cmp.csv"
    path.write_text("task_id,model_a,model_b,winner\nt1,x,y,a\nt2,x,y,b\nt3,x,y,maybe\n", encoding="utf-8")
    with pytest.raises(SourceFormatError, match=r"cmp\.csv: line 4: winner 'maybe'"):
        read_comparisons(path)


def test_missing_model_and_self_comparison_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "cmp.jsonl"
    lines = [{"task_id": "t1", "model_a": "x", "model_b": "y", "winner": "a"},
             {"task_id": "t2", "model_a": "x", "model_b": "", "winner": "a"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    with pytest.raises(SourceFormatError, match="line 2: model_b is empty"):
        read_comparisons(path)
    path.write_text(json.dumps({"task_id": "t1", "model_a": "x", "model_b": "x", "winner": "tie"}) + "\n",
                    encoding="utf-8")
    with pytest.raises(SourceFormatError, match="line 1: 'x' is compared with itself"):
        read_comparisons(path)


def test_missing_columns_are_named(tmp_path: Path) -> None:
    path = tmp_path / "cmp.csv"
    path.write_text("task,model_a,model_b,outcome\nt1,x,y,a\n", encoding="utf-8")
    with pytest.raises(SourceFormatError, match="missing column.*task_id.*winner"):
        read_comparisons(path)


def test_scaffold_makes_a_model_scaffold_player_and_csv_equals_jsonl(tmp_path: Path) -> None:
    rows = sample_rows()
    jsonl = read_comparisons(write_sample(tmp_path / "s.jsonl"))
    csv = read_comparisons(write_comparisons(rows, tmp_path / "s.csv"))
    assert SAMPLE_ANCHOR in jsonl.players and "sft-27b (codex)" in jsonl.players
    assert jsonl.players == csv.players and len(jsonl) == len(csv) == len(rows)
    assert jsonl.frame["winner"].to_list() == csv.frame["winner"].to_list()
    assert jsonl.frame["covered"].to_list() == csv.frame["covered"].to_list()


def test_run_writes_json_csv_png_and_html(tmp_path: Path) -> None:
    path = write_sample(tmp_path / "cmp.jsonl")
    result = elo.run(
        elo.EloParams(comparisons=path, anchor=SAMPLE_ANCHOR, bootstrap=100, out_dir=tmp_path / "o")
    )
    for key in ("json", "csv", "png", "html"):
        assert Path(result.outputs[key]).stat().st_size > 0
    saved = json.loads(Path(result.outputs["json"]).read_text())
    assert saved["anchor"] == SAMPLE_ANCHOR and len(saved["ratings"]) == len(SAMPLE_PLAYERS)
    assert "data:image/png;base64" in Path(result.outputs["html"]).read_text()

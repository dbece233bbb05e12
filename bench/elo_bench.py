"""Elo bootstrap: GraphForge's batched Newton vs a per-resample scikit-learn refit (Chatbot Arena style).

Both sides fit the same objective (Bradley-Terry log-likelihood, ties as half a win, ridge/2 |theta|^2)
on the same comparisons and the same bootstrap resamples (one seeded multinomial stream over the
aggregated cells). The reference materialises each resample as a list of comparisons, builds the
expanded design matrix (+1 for model a, -1 for model b; a tie becomes a win and a loss at weight 0.5)
and refits scikit-learn's LogisticRegression from scratch, as the Arena analysis notebook does.

When the full reference run would exceed --reference-budget seconds per size, the reference fits only
the first resamples that fit the budget; its wall time for all resamples is then extrapolated and
labelled as such, and the CI comparison uses those common resamples on both sides.

    .venv/bin/python -m bench elo_bench
    .venv/bin/python -m bench.elo_bench --models 20 40 --bootstrap 10000 --reference-budget 0  # full
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Sequence

import numpy as np

from bench import check
from graphforge.demo.sample.comparisons import TruePlayer, generate_comparisons
from graphforge.eval import elo
from graphforge.eval.comparisons import WIN, PairCells, comparisons_from_rows


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, nargs="+", default=[20, 40])
    parser.add_argument("--comparisons", type=int, default=10_000)
    parser.add_argument("--bootstrap", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--reference-budget", type=float, default=150.0,
                        help="seconds of reference refits per size; 0 = always fit every resample")
    return parser


def expanded_design(cells: PairCells, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One design row per comparison of a resample (a tie: two rows at weight 0.5), Arena-style."""
    pair = np.repeat(np.arange(len(cells.i)), 3)
    outcome = np.tile(np.arange(3), len(cells.i))
    take = np.repeat(np.arange(counts.size), counts.reshape(-1))
    p, o = pair[take], outcome[take]
    rows = len(p)
    x = np.zeros((rows, len(cells.players)))
    x[np.arange(rows), cells.i[p]] = 1.0
    x[np.arange(rows), cells.j[p]] = -1.0
    tie = o == 2
    design = np.vstack([x, x[tie]])
    y = np.concatenate([(o == WIN) | tie, np.zeros(int(tie.sum()), dtype=bool)]).astype(np.int64)
    weight = np.concatenate([np.where(tie, 0.5, 1.0), np.full(int(tie.sum()), 0.5)])
    return design, y, weight


def reference_theta(cells: PairCells, counts: np.ndarray, ridge: float) -> np.ndarray:
    """Refit one resample from scratch with LogisticRegression; C = 1/ridge gives the same penalty."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression

    design, y, weight = expanded_design(cells, counts)
    model = LogisticRegression(fit_intercept=False, C=1.0 / ridge, tol=1e-10, max_iter=10_000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(design, y, sample_weight=weight)
    return np.asarray(model.coef_[0])


def _ci(samples: np.ndarray) -> np.ndarray:
    return np.percentile(samples, [2.5, 97.5], axis=0)


def run_size(models: int, comparisons: int, bootstrap: int, seed: int, budget: float) -> dict[str, object]:
    players = [TruePlayer(f"model-{k:02d}", None, 1200.0 + 700.0 * k / (models - 1)) for k in range(models)]
    tasks = max(1, comparisons // 10)
    cmp = comparisons_from_rows(
        generate_comparisons(players, tasks=tasks, pairs_per_task=10, seed=seed + models)
    )
    anchor = players[models // 2].name
    ridge = elo.DEFAULT_RIDGE

    started = time.perf_counter()
    result = elo.fit_elo(cmp, anchor=anchor, bootstrap=bootstrap, seed=seed, ridge=ridge)
    ours_s = time.perf_counter() - started

    cells = elo.checked_cells(cmp, anchor)
    a = cells.players.index(anchor)
    ours_point = elo.to_elo(elo.fit_theta(cells, ridge), a, 1667.0)
    ours_samples = np.concatenate([elo.to_elo(t, a, 1667.0)
                                   for t in elo.bootstrap_theta(cells, bootstrap, seed, ridge)])
    reported = np.array([next(r.elo for r in result.ratings if r.model == p) for p in cells.players])
    check(np.abs(reported - ours_point).max() < 1e-9, "the stage's Elo differs from the fit it reports")

    started = time.perf_counter()
    ref_point = elo.to_elo(reference_theta(cells, cells.counts, ridge), a, 1667.0)
    ref_samples: list[np.ndarray] = []
    ref_started = time.perf_counter()
    for chunk in elo.resample_counts(cells, bootstrap, seed):
        for counts in chunk:
            ref_samples.append(elo.to_elo(reference_theta(cells, counts, ridge), a, 1667.0))
            spent = time.perf_counter() - ref_started
            if budget > 0 and spent > budget:
                break
        else:
            continue
        break
    ref_s = time.perf_counter() - started
    fitted = len(ref_samples)
    per_resample = (time.perf_counter() - ref_started) / fitted
    ref_total = ref_s if fitted == bootstrap else ref_s + per_resample * (bootstrap - fitted)
    ref = np.array(ref_samples)
    ours_common = ours_samples[:fitted]
    return {"models": models, "comparisons": len(cmp), "resamples": bootstrap, "ours_s": ours_s,
            "ref_s": ref_total, "ref_measured": fitted == bootstrap, "ref_fitted": fitted,
            "ref_per_resample_ms": 1000 * per_resample,
            "point_diff": float(np.abs(ours_point - ref_point).max()),
            "resample_diff": float(np.abs(ours_common - ref).max()),
            "ci_diff": float(np.abs(_ci(ours_common) - _ci(ref)).max()),
            "ratio": ref_total / ours_s}


def main(argv: Sequence[str] | None = None) -> int:
    args = make_parser().parse_args(list(argv) if argv is not None else None)
    print(f"Elo bootstrap: GraphForge batched Newton vs per-resample scikit-learn LogisticRegression refit "
          f"(same objective, same {args.bootstrap} resamples)")
    rows = [
        run_size(m, args.comparisons, args.bootstrap, args.seed, args.reference_budget) for m in args.models
    ]
    header = (f"{'models':>6} {'comparisons':>11} {'resamples':>9} {'graphforge s':>12} {'reference s':>16} "
              f"{'ratio':>7} {'point |dElo|':>12} {'CI |dElo|':>10} {'resample |dElo|':>15}")
    print(header)
    print("-" * len(header))
    for r in rows:
        ref = f"{r['ref_s']:.1f}" + ("" if r["ref_measured"] else "*")
        print(
            f"{r['models']:>6} {r['comparisons']:>11} {r['resamples']:>9} {r['ours_s']:>12.2f} {ref:>16} "
            f"{r['ratio']:>6.0f}x {r['point_diff']:>12.2e} {r['ci_diff']:>10.2e} {r['resample_diff']:>15.2e}"
        )
    for r in rows:
        if not r["ref_measured"]:
            print(
                f"* {r['models']} models: reference extrapolated from {r['ref_fitted']} measured refits "
                f"({r['ref_per_resample_ms']:.1f} ms each) to {r['resamples']}; CI and resample differences "
                f"compare those {r['ref_fitted']} common resamples"
            )
    ok = all(r["point_diff"] < 0.01 and r["ci_diff"] < 0.1 for r in rows)
    print("agreement: point estimates within 0.01 Elo and CIs within 0.1 Elo: " + ("yes" if ok else "NO"))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())

"""Bradley-Terry Elo with an anchor and bootstrap CIs, fitted for all resamples at once by batched Newton.

Model: P(i beats j) = sigma(theta_i - theta_j); a tie counts as half a win for each side. The fit
maximises the log-likelihood minus a tiny ridge (ridge/2 * |theta|^2), which makes the optimum unique
even for a resample in which a player never loses. Reported ratings are

    Elo_i = anchor_rating + 400 / ln(10) * (theta_i - theta_anchor)

so the anchor prints exactly its rating. A bootstrap resample draws N comparisons with replacement;
its (pair, outcome) counts are one multinomial draw over the aggregated cells, so all resamples are
count matrices and one vectorised Newton solver, warm-started at the point estimate, fits them together.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from graphforge.errors import SourceFormatError
from graphforge.eval.comparisons import Comparisons, PairCells, components, pair_cells, read_comparisons

ELO_SCALE = 400.0 / math.log(10.0)
DEFAULT_RIDGE = 1e-4
CHUNK = 1000  # resamples solved together; bounds memory at (CHUNK, n, n) Hessians


class EloParams(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    comparisons: Path
    anchor: str
    anchor_rating: float = 1667.0
    bootstrap: int = Field(10_000, ge=0)
    seed: int = 0
    confidence: float = Field(0.95, gt=0, lt=1)
    ridge: float = Field(DEFAULT_RIDGE, gt=0)
    out_dir: Path | None = None  # None: compute only, write nothing


class ModelRating(BaseModel):
    rank: int
    model: str
    elo: float
    ci_low: float
    ci_high: float
    comparisons: int
    wins: int
    losses: int
    ties: int


class EloResult(BaseModel):
    source: str
    anchor: str
    anchor_rating: float
    comparisons: int
    models: int
    tasks: int
    bootstrap: int
    seed: int
    confidence: float
    ridge: float
    ratings: list[ModelRating]
    warnings: list[str] = Field(default_factory=list)
    outputs: dict[str, str] = Field(default_factory=dict)
    seconds: float = 0.0


def run(params: EloParams) -> EloResult:
    """Read a comparison file and fit Elo with bootstrap CIs; write JSON, CSV, PNG, HTML to out_dir if set."""
    started = time.perf_counter()
    result = fit_elo(read_comparisons(params.comparisons), anchor=params.anchor,
                     anchor_rating=params.anchor_rating, bootstrap=params.bootstrap, seed=params.seed,
                     confidence=params.confidence, ridge=params.ridge)
    result.seconds = round(time.perf_counter() - started, 3)
    if params.out_dir is not None:
        write_outputs(result, params.out_dir)
    return result


def fit_elo(comparisons: Comparisons, anchor: str, anchor_rating: float = 1667.0, bootstrap: int = 10_000,
            seed: int = 0, confidence: float = 0.95, ridge: float = DEFAULT_RIDGE) -> EloResult:
    """Fit anchored Bradley-Terry Elo with percentile bootstrap CIs (pure: no files written)."""
    cells = checked_cells(comparisons, anchor)
    a = cells.players.index(anchor)
    theta = fit_theta(cells, ridge)
    elo = to_elo(theta, a, anchor_rating)
    if bootstrap > 0:
        samples = np.concatenate(
            [to_elo(t, a, anchor_rating) for t in bootstrap_theta(cells, bootstrap, seed, ridge, theta)]
        )
        tail = (1.0 - confidence) / 2.0
        low, high = np.percentile(samples, [100 * tail, 100 * (1 - tail)], axis=0)
    else:
        low, high = elo.copy(), elo.copy()
    wins, losses, ties = _records(cells)
    order = np.argsort(-elo, kind="stable")
    ratings = [ModelRating(rank=r + 1, model=cells.players[k], elo=float(elo[k]), ci_low=float(low[k]),
                           ci_high=float(high[k]), comparisons=int(wins[k] + losses[k] + ties[k]),
                           wins=int(wins[k]), losses=int(losses[k]), ties=int(ties[k]))
               for r, k in enumerate(order)]
    return EloResult(
        source=comparisons.source,
        anchor=anchor,
        anchor_rating=anchor_rating,
        comparisons=len(comparisons),
        models=len(cells.players),
        tasks=comparisons.frame["task_id"].n_unique(),
        bootstrap=bootstrap,
        seed=seed,
        confidence=confidence,
        ridge=ridge,
        ratings=ratings,
        warnings=_warnings(cells, wins, losses),
    )


def checked_cells(comparisons: Comparisons, anchor: str) -> PairCells:
    """Aggregate and check that the anchor exists and every player is connected to every other."""
    cells = pair_cells(comparisons)
    if anchor not in cells.players:
        raise SourceFormatError(comparisons.source, f"anchor {anchor!r} is not a player here; players are: "
                                                    f"{', '.join(cells.players)}")
    groups = components(cells)
    if len(groups) > 1:
        named = "; ".join(f"component {k + 1}: {{{', '.join(g)}}}" for k, g in enumerate(groups))
        raise SourceFormatError(
            comparisons.source,
            f"the comparison graph is disconnected, so ratings across "
            f"components are not identifiable ({named})",
        )
    return cells


def to_elo(theta: np.ndarray, anchor: int, anchor_rating: float) -> np.ndarray:
    """Elo from strengths (last axis = players); the anchor column is exactly anchor_rating."""
    return np.asarray(anchor_rating + ELO_SCALE * (theta - theta[..., anchor : anchor + 1]))


def fit_theta(cells: PairCells, ridge: float = DEFAULT_RIDGE) -> np.ndarray:
    """Point estimate of the strengths (players in cells.players order)."""
    wins, n = cells.scores(cells.counts)
    theta = newton(cells.i, cells.j, wins[None, :], n[None, :], ridge, np.zeros((1, len(cells.players))))
    return np.asarray(theta[0])


def resample_counts(cells: PairCells, bootstrap: int, seed: int, chunk: int = CHUNK) -> Iterator[np.ndarray]:
    """Bootstrap resamples as (pair, outcome) count arrays of shape (chunk, P, 3), from one seeded stream.

    Drawing N comparisons with replacement and counting them per cell is exactly a multinomial draw
    with the observed cell shares, so the resampled comparison lists never need to exist.
    """
    rng = np.random.default_rng(seed)
    flat = cells.counts.reshape(-1)
    nonzero = np.flatnonzero(flat)
    total = int(flat.sum())
    shares = flat[nonzero] / total
    for start in range(0, bootstrap, chunk):
        size = min(chunk, bootstrap - start)
        drawn = rng.multinomial(total, shares, size=size)
        out = np.zeros((size, flat.size), dtype=np.int64)
        out[:, nonzero] = drawn
        yield out.reshape(size, *cells.counts.shape)


def bootstrap_theta(cells: PairCells, bootstrap: int, seed: int, ridge: float = DEFAULT_RIDGE,
                    start: np.ndarray | None = None) -> Iterator[np.ndarray]:
    """Strengths for every resample, chunk by chunk (arrays of shape (chunk, players))."""
    theta0 = fit_theta(cells, ridge) if start is None else start
    for counts in resample_counts(cells, bootstrap, seed):
        wins, n = cells.scores(counts)
        yield newton(
            cells.i, cells.j, wins, n, ridge, np.broadcast_to(theta0, (len(counts), len(theta0))).copy()
        )


def objective(i: np.ndarray, j: np.ndarray, wins: np.ndarray, n: np.ndarray, ridge: float,
              theta: np.ndarray) -> np.ndarray:
    """Negative penalised log-likelihood per resample.

    sum_p [w log(1+e^-d) + (n-w) log(1+e^d)] + ridge/2 |theta|^2
    """
    d = theta[:, i] - theta[:, j]
    # w*log(1+e^-d) + (n-w)*log(1+e^d) == n*log(1+e^d) - w*d: one softplus instead of two.
    nll = n * np.logaddexp(0.0, d) - wins * d
    return np.asarray(nll.sum(axis=1) + 0.5 * ridge * (theta * theta).sum(axis=1))


def newton(i: np.ndarray, j: np.ndarray, wins: np.ndarray, n: np.ndarray, ridge: float, theta: np.ndarray,
           tol: float = 1e-7, max_iter: int = 200) -> np.ndarray:
    """Minimise the penalised Bradley-Terry objective for a batch of resamples (rows) at once.

    Damped Newton: the Hessian is the weighted graph Laplacian of the pairs plus ridge * I, which is
    positive definite. A row whose step moves some pair's logit difference by more than 1 backtracks
    by halving until the objective decreases; every other row takes the full step (see below).
    Rows stop once their largest step is below tol in theta units: Newton converges quadratically, so
    the error left after a step of 1e-7 is of order 1e-14 (far below 0.001 Elo).
    """
    theta = np.array(theta, dtype=np.float64)
    batch, players = theta.shape
    incidence = np.zeros((len(i), players))
    incidence[np.arange(len(i)), i] = 1.0
    incidence[np.arange(len(i)), j] = -1.0
    spread = np.ascontiguousarray(
        incidence.T
    )  # theta @ spread = theta_i - theta_j per pair (BLAS, no gather)
    degree = np.abs(incidence)
    # Flat positions in a players x players matrix: one 1-D scatter is much cheaper than 2-D fancy indexing.
    upper, lower, diag = i * players + j, j * players + i, np.arange(players) * (players + 1)
    active = np.arange(batch)
    for _ in range(max_iter):
        if active.size == 0:
            break
        th, w, m = theta[active], wins[active], n[active]
        s = 0.5 * (1.0 + np.tanh(0.5 * (th @ spread)))  # sigma(d) without overflow warnings
        grad = (m * s - w) @ incidence + ridge * th
        h = m * s * (1.0 - s)
        hess = np.zeros((len(active), players * players))
        hess[:, upper] = -h
        hess[:, lower] = -h
        hess[:, diag] = h @ degree + ridge
        step = np.linalg.solve(hess.reshape(-1, players, players), grad[..., None])[..., 0]
        new = th - step
        # Logistic curvature changes at most by e^t along a step that moves every pair's logit by <= t,
        # so f(theta - step) <= f(theta) - dec * (1 - (e^t - 1 - t) / t^2) < f(theta) for t <= 1: such
        # full steps are provably descent steps and only the other rows need the backtracking check.
        far = np.flatnonzero(np.abs(step @ spread).max(axis=1, initial=0.0) > 1.0)
        if far.size:
            new[far] = _backtrack(i, j, w[far], m[far], ridge, th[far], step[far])
        moved = np.abs(new - th).max(axis=1)
        theta[active] = new
        active = active[moved >= tol]
    return theta


def _backtrack(i: np.ndarray, j: np.ndarray, wins: np.ndarray, n: np.ndarray, ridge: float, theta: np.ndarray,
               step: np.ndarray) -> np.ndarray:
    """Halve each row's Newton step until the objective does not increase (at most 60 halvings)."""
    f0 = objective(i, j, wins, n, ridge, theta)
    t = np.ones(len(theta))
    new = theta - step
    rows = np.arange(len(theta))
    for _ in range(60):
        worse = objective(i, j, wins[rows], n[rows], ridge, new[rows]) > f0[rows]
        rows = rows[worse]
        if rows.size == 0:
            break
        t[rows] *= 0.5
        new[rows] = theta[rows] - t[rows, None] * step[rows]
    return np.asarray(new)


def _records(cells: PairCells) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = len(cells.players)
    wins, losses, ties = np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64)
    c = cells.counts
    np.add.at(wins, cells.i, c[:, 0])
    np.add.at(losses, cells.i, c[:, 1])
    np.add.at(wins, cells.j, c[:, 1])
    np.add.at(losses, cells.j, c[:, 0])
    np.add.at(ties, cells.i, c[:, 2])
    np.add.at(ties, cells.j, c[:, 2])
    return wins, losses, ties


def _warnings(cells: PairCells, wins: np.ndarray, losses: np.ndarray) -> list[str]:
    notes = []
    for k, name in enumerate(cells.players):
        # Without a loss (or a win) the likelihood alone has no finite optimum; only the ridge bounds it.
        if losses[k] == 0:
            notes.append(f"{name} never lost: its rating is bounded only by the ridge and is not meaningful")
        elif wins[k] == 0:
            notes.append(f"{name} never won: its rating is bounded only by the ridge and is not meaningful")
    return notes


def write_outputs(result: EloResult, out_dir: Path) -> dict[str, str]:
    """Write elo.json, elo.csv, elo.png (ratings with CIs) and elo.html into out_dir; record in outputs."""
    import polars as pl

    from graphforge.reports.html import Section, write_report

    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {"json": out_dir / "elo.json", "csv": out_dir / "elo.csv", "png": out_dir / "elo.png",
             "html": out_dir / "elo.html"}
    pl.DataFrame([r.model_dump() for r in result.ratings]).write_csv(paths["csv"])
    plot_ratings(result, paths["png"])
    pct = round(result.confidence * 100)
    rows = [(r.rank, r.model, f"{r.elo:.1f}", f"[{r.ci_low:.1f}, {r.ci_high:.1f}]", r.comparisons,
             f"{r.wins}/{r.losses}/{r.ties}") for r in result.ratings]
    sections = [
        Section(
            "Ratings",
            text=f"Bradley-Terry maximum likelihood, ties as half a win, anchor "
            f"{result.anchor} fixed at {result.anchor_rating:g}; {pct}% percentile "
            f"CIs from {result.bootstrap} bootstrap resamples (seed {result.seed}).",
            columns=("rank", "model", "Elo", f"{pct}% CI", "comparisons", "W/L/T"),
            rows=rows,
            images=[paths["png"]],
        )
    ]
    if result.warnings:
        sections.append(Section("Warnings", columns=("warning",), rows=[(w,) for w in result.warnings]))
    write_report(paths["html"], "Elo ratings", sections,
                 subtitle=f"{result.source}: {result.comparisons} comparisons, {result.models} models, "
                          f"{result.tasks} tasks")
    result.outputs = {k: str(v) for k, v in paths.items()}
    paths["json"].write_text(json.dumps(result.model_dump(mode="json"), indent=2), encoding="utf-8")
    return result.outputs


def plot_ratings(result: EloResult, path: Path) -> Path:
    """Horizontal Elo plot with CI bars, best model on top; the anchor is drawn as a dashed line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ratings = list(reversed(result.ratings))
    y = np.arange(len(ratings))
    elo = np.array([r.elo for r in ratings])
    err = np.array([[r.elo - r.ci_low for r in ratings], [r.ci_high - r.elo for r in ratings]])
    fig, ax = plt.subplots(figsize=(8, 0.35 * len(ratings) + 1.5))
    ax.errorbar(elo, y, xerr=np.clip(err, 0, None), fmt="o", color="#1f5fa8", ecolor="#7a9cc6", capsize=3)
    ax.axvline(result.anchor_rating, color="#999", linestyle="--", linewidth=1)
    ax.set_yticks(y, [r.model for r in ratings])
    ax.set_xlabel(f"Elo ({round(result.confidence * 100)}% bootstrap CI; anchor {result.anchor} = "
                  f"{result.anchor_rating:g})")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return path

"""Win rate of one player against another (ties as half a win) with bootstrap CIs, overall and by attribute.

Only the comparisons between the two named players count. A resample draws that group's comparisons
with replacement, which is one multinomial draw over (wins, losses, ties), so every resample is drawn at
once. The paper's split (tasks whose occupation the training taxonomy covers vs. not) is `--by covered`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
from pydantic import BaseModel, ConfigDict, Field

from graphforge.errors import SourceFormatError
from graphforge.eval.comparisons import Comparisons, read_comparisons

MISSING = "(missing)"


class WinRateParams(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    comparisons: Path
    a: str
    b: str
    by: str | None = None  # a task attribute column, e.g. "covered"
    bootstrap: int = Field(10_000, ge=0)
    seed: int = 0
    confidence: float = Field(0.95, gt=0, lt=1)
    out_dir: Path | None = None


class WinRate(BaseModel):
    group: str  # "overall" or "<attribute>=<value>"
    comparisons: int
    wins: int
    losses: int
    ties: int
    win_rate: float
    ci_low: float
    ci_high: float


class WinRateResult(BaseModel):
    source: str
    a: str
    b: str
    by: str | None
    bootstrap: int
    seed: int
    confidence: float
    rows: list[WinRate]
    outputs: dict[str, str] = Field(default_factory=dict)


def run(params: WinRateParams) -> WinRateResult:
    """Read a comparison file and compute the win rates; write JSON and HTML when out_dir is set."""
    result = win_rates(read_comparisons(params.comparisons), params.a, params.b, by=params.by,
                       bootstrap=params.bootstrap, seed=params.seed, confidence=params.confidence)
    if params.out_dir is not None:
        write_outputs(result, params.out_dir)
    return result


def win_rates(comparisons: Comparisons, a: str, b: str, by: str | None = None, bootstrap: int = 10_000,
              seed: int = 0, confidence: float = 0.95) -> WinRateResult:
    """Win rate of a against b overall and per value of the attribute `by` (pure)."""
    players = comparisons.players
    for name in (a, b):
        if name not in players:
            raise SourceFormatError(
                comparisons.source, f"no player named {name!r}; players are: {', '.join(players)}"
            )
    if a == b:
        raise SourceFormatError(
            comparisons.source, f"a win rate needs two different players, got {a!r} twice"
        )
    if by is not None and by not in comparisons.attributes:
        known = ", ".join(comparisons.attributes) or "none"
        raise SourceFormatError(comparisons.source, f"no task attribute {by!r}; attributes are: {known}")
    f = comparisons.frame
    pair = f.filter(((pl.col("player_a") == a) & (pl.col("player_b") == b))
                    | ((pl.col("player_a") == b) & (pl.col("player_b") == a)))
    if pair.height == 0:
        raise SourceFormatError(comparisons.source, f"{a!r} and {b!r} are never compared directly")
    # Outcome from a's side: "a" means the player in column a won.
    outcome = pair.select(
        pl.when(pl.col("winner") == "tie").then(pl.lit("tie"))
        .when((pl.col("winner") == "a") == (pl.col("player_a") == a)).then(pl.lit("win"))
        .otherwise(pl.lit("loss")).alias("outcome"),
        *([pl.col(by).fill_null(MISSING).alias("group")] if by else []))
    rng = np.random.default_rng(seed)
    rows = [_rate("overall", outcome["outcome"], bootstrap, rng, confidence)]
    if by:
        for value in sorted(outcome["group"].unique().to_list()):
            part = outcome.filter(pl.col("group") == value)["outcome"]
            rows.append(_rate(f"{by}={value}", part, bootstrap, rng, confidence))
    return WinRateResult(source=comparisons.source, a=a, b=b, by=by, bootstrap=bootstrap, seed=seed,
                         confidence=confidence, rows=rows)


def _rate(
    group: str, outcome: pl.Series, bootstrap: int, rng: np.random.Generator, confidence: float
) -> WinRate:
    wins, losses, ties = (int((outcome == k).sum()) for k in ("win", "loss", "tie"))
    n = wins + losses + ties
    rate = (wins + 0.5 * ties) / n
    if bootstrap > 0:
        draws = rng.multinomial(n, [wins / n, losses / n, ties / n], size=bootstrap)
        rates = (draws[:, 0] + 0.5 * draws[:, 2]) / n
        tail = (1.0 - confidence) / 2.0
        low, high = np.percentile(rates, [100 * tail, 100 * (1 - tail)])
    else:
        low = high = rate
    return WinRate(group=group, comparisons=int(n), wins=int(wins), losses=int(losses), ties=int(ties),
                   win_rate=float(rate), ci_low=float(low), ci_high=float(high))


def write_outputs(result: WinRateResult, out_dir: Path) -> dict[str, str]:
    """Write winrate.json, winrate.png and winrate.html into out_dir; record them in outputs."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from graphforge.reports.html import Section, write_report

    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {
        "json": out_dir / "winrate.json",
        "png": out_dir / "winrate.png",
        "html": out_dir / "winrate.html",
    }
    y = np.arange(len(result.rows))[::-1]
    rate = np.array([r.win_rate for r in result.rows])
    err = np.array(
        [[r.win_rate - r.ci_low for r in result.rows], [r.ci_high - r.win_rate for r in result.rows]]
    )
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(result.rows) + 1.4))
    ax.errorbar(rate, y, xerr=np.clip(err, 0, None), fmt="o", color="#1f5fa8", ecolor="#7a9cc6", capsize=3)
    ax.axvline(0.5, color="#999", linestyle="--", linewidth=1)
    ax.set_yticks(y, [f"{r.group} (n={r.comparisons})" for r in result.rows])
    ax.set_xlim(0, 1)
    ax.set_xlabel(f"win rate of {result.a} vs {result.b} ({round(result.confidence * 100)}% bootstrap CI)")
    fig.tight_layout()
    fig.savefig(paths["png"], dpi=120, bbox_inches="tight")  # keeps the x label of a one-row plot
    plt.close(fig)
    pct = round(result.confidence * 100)
    rows = [(r.group, r.comparisons, f"{r.wins}/{r.losses}/{r.ties}", f"{r.win_rate:.3f}",
             f"[{r.ci_low:.3f}, {r.ci_high:.3f}]") for r in result.rows]
    write_report(paths["html"], f"Win rate: {result.a} vs {result.b}",
                 [Section("Win rates", text=f"Ties count half a win; {pct}% percentile CIs from "
                                            f"{result.bootstrap} bootstrap resamples (seed {result.seed}).",
                          columns=("group", "comparisons", "W/L/T", "win rate", f"{pct}% CI"), rows=rows,
                          images=[paths["png"]])], subtitle=result.source)
    result.outputs = {k: str(v) for k, v in paths.items()}
    paths["json"].write_text(result.model_dump_json(indent=2), encoding="utf-8")
    return result.outputs

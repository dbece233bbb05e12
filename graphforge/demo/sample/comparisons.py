"""Synthetic pairwise comparisons drawn from known Elo strengths (seeded), with ties and a task attribute.

Outcomes follow the Davidson extension of Bradley-Terry: with pi = 10^(Elo/400),
P(a wins) = pi_a / Z, P(tie) = nu * sqrt(pi_a * pi_b) / Z, P(b wins) = pi_b / Z, so ties are likelier
between close players. Every task carries `covered` (true/false), like occupations covered or not by
the training taxonomy. The bundled sample is fictional: its player names and strengths are made up.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from graphforge.eval.comparisons import player_name


@dataclass(frozen=True)
class TruePlayer:
    model: str
    scaffold: str | None
    elo: float

    @property
    def name(self) -> str:
        return player_name(self.model, self.scaffold)


def _sample_players() -> list[TruePlayer]:
    # Fictional models under two scaffolds; the spread mirrors a leaderboard of agent models.
    strengths = {
        "frontier-xl": (1775.0, 1755.0),
        "anchor-model": (1667.0, 1650.0),
        "sft-27b": (1446.0, 1427.0),
        "base-27b": (1380.0, 1364.0),
        "rft-anchored-27b": (1455.0, 1440.0),
        "rft-random-27b": (1435.0, 1418.0),
        "open-baseline-35b": (1290.0, 1340.0),
    }
    return [TruePlayer(model, scaffold, elo) for model, pair in strengths.items()
            for scaffold, elo in zip(("openhands", "codex"), pair, strict=True)]


SAMPLE_PLAYERS: tuple[TruePlayer, ...] = tuple(_sample_players())
SAMPLE_ANCHOR = "anchor-model (openhands)"
SAMPLE_TASKS = 220
SAMPLE_COVERED = 65  # tasks whose occupation the training taxonomy covers
# Win-rate demo: the SFT model against its base model under each scaffold, on every task.
SAMPLE_ALWAYS = (("sft-27b (openhands)", "base-27b (openhands)"), ("sft-27b (codex)", "base-27b (codex)"))


def generate_comparisons(players: Sequence[TruePlayer], tasks: int, pairs_per_task: int, seed: int,
                         tie_strength: float = 0.25, covered: int = 0,
                         always: Sequence[tuple[str, str]] = ()) -> list[dict[str, object]]:
    """Comparison rows (task_id, model_a, scaffold_a, model_b, scaffold_b, winner, covered).

    Each task compares `pairs_per_task` distinct random pairs plus the `always` pairs (by player
    name); sides are shuffled so position carries no signal. `covered` tasks are chosen at random.
    """
    rng = np.random.default_rng(seed)
    by_name = {p.name: p for p in players}
    all_pairs = list(itertools.combinations(range(len(players)), 2))
    fixed = [(players.index(by_name[a]), players.index(by_name[b])) for a, b in always]
    covered_tasks = set(rng.choice(tasks, size=covered, replace=False).tolist()) if covered else set()
    rows: list[dict[str, object]] = []
    for t in range(tasks):
        chosen = rng.choice(len(all_pairs), size=min(pairs_per_task, len(all_pairs)), replace=False)
        pairs = fixed + [all_pairs[k] for k in chosen if all_pairs[k] not in fixed]
        for x, y in pairs:
            a, b = (players[x], players[y]) if rng.random() < 0.5 else (players[y], players[x])
            pa, pb = 10 ** (a.elo / 400), 10 ** (b.elo / 400)
            tie = tie_strength * np.sqrt(pa * pb)
            u = rng.random() * (pa + pb + tie)
            winner = "a" if u < pa else "tie" if u < pa + tie else "b"
            rows.append({"task_id": f"task-{t:04d}", "model_a": a.model, "scaffold_a": a.scaffold,
                         "model_b": b.model, "scaffold_b": b.scaffold, "winner": winner,
                         "covered": t in covered_tasks})
    return rows


def write_comparisons(rows: Sequence[dict[str, object]], path: Path) -> Path:
    """Write rows as JSONL (.jsonl) or CSV (.csv), by the path's suffix."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() == ".csv":
        import polars as pl

        pl.DataFrame(list(rows)).with_columns(
            pl.col("covered").map_elements(lambda v: "true" if v else "false", return_dtype=pl.String)
        ).write_csv(path)
    else:
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def sample_rows(seed: int = 7) -> list[dict[str, object]]:
    """The bundled sample: 14 model x scaffold players, 220 tasks (65 covered), about 2,200 comparisons."""
    return generate_comparisons(SAMPLE_PLAYERS, tasks=SAMPLE_TASKS, pairs_per_task=8, seed=seed,
                                covered=SAMPLE_COVERED, always=SAMPLE_ALWAYS)


def write_sample(path: Path, seed: int = 7) -> Path:
    """Write the bundled sample comparisons to path (same seed, same bytes); returns the path."""
    return write_comparisons(sample_rows(seed), path)

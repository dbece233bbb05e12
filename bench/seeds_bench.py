"""Seed selection: lazy CELF greedy vs naive greedy (the peer) on the same candidates, same run.

Paper scale is 3,419 occupation-task-type pairs (246 occupations, 891 DWAs, 16 patterns); the
large run is a synthetic pool 100x that size. Both runs check that the orders are identical and
print the ratio of wall time and of gain evaluations. Naive pure-Python greedy at 100x would take
hours, so there the main peer is the numpy-vectorised naive greedy (same order, one pass per pick)
and the pure-Python naive runs a short prefix.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from graphforge import seeding


def synthetic_pool(pairs: int, occupations: int, task_types: int, seed: int = 11,
                   patterns: int = 16, families: int = 9) -> list[seeding.Candidate]:
    """Candidates shaped like the paper's pool: skewed occupation and pattern frequencies."""
    rng = random.Random(seed)
    # Zipf-like weights: a few patterns (data analysis, research) dominate, as in the paper's corpus.
    pattern_w = [1 / (k + 1) for k in range(patterns)]
    family_w = [1 / (k + 1) ** 1.5 for k in range(families)]
    out = []
    for i in range(pairs):
        occ = rng.randrange(occupations)
        dwa = (occ * 7 + rng.randrange(max(1, task_types // 8))) % task_types
        pattern = rng.choices(range(patterns), pattern_w)[0]
        family = rng.choices(range(families), family_w)[0]
        task = f"{100000 + i}"
        out.append(seeding.Candidate(key=f"seed{i}", tie=seeding.tie_key(task, f"seed{i}"),
                                     values=(f"occ{occ}", f"dwa{dwa}", f"pat{pattern}", f"fam{family}")))
    return out


def _timed(fn: Callable[[], seeding.Selection]) -> tuple[seeding.Selection, float]:
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


def compare(label: str, pool: list[seeding.Candidate], n: int, peer: str) -> None:
    peer_fn = seeding.greedy_naive if peer == "naive" else seeding.greedy_numpy
    lazy, t_lazy = _timed(lambda: seeding.greedy_lazy(pool, n))
    base, t_base = _timed(lambda: peer_fn(pool, n))
    same = lazy.order == base.order and lazy.gains == base.gains
    print(f"{label}: {len(pool):,} candidates, select {n:,}")
    print(f"  lazy CELF        {t_lazy:9.3f} s  {lazy.evaluations:>14,} gain evaluations")
    print(f"  {peer:<16} {t_base:9.3f} s  {base.evaluations:>14,} gain evaluations")
    print(f"  identical order: {same}; wall-time ratio {peer}/lazy = {t_base / t_lazy:.1f}x; "
          f"evaluation ratio = {base.evaluations / lazy.evaluations:.1f}x")
    if not same:
        raise SystemExit("lazy greedy diverged from the naive order")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench seeds_bench")
    parser.add_argument("--pairs", type=int, default=3419)
    parser.add_argument("--scale", type=int, default=100, help="multiplier for the synthetic large pool")
    parser.add_argument("--large-n", type=int, default=300, help="seeds selected from the large pool")
    parser.add_argument("--skip-large", action="store_true")
    args = parser.parse_args(argv)

    paper = synthetic_pool(args.pairs, occupations=246, task_types=891)
    compare("paper scale (full ranking)", paper, len(paper), "naive")
    compare("paper scale (select 2,000)", paper, min(2000, len(paper)), "naive")
    if not args.skip_large:
        large = synthetic_pool(args.pairs * args.scale, occupations=246 * 4, task_types=891 * 2, seed=12)
        compare(f"{args.scale}x synthetic", large, args.large_n, "numpy")
        compare(f"{args.scale}x synthetic vs pure-Python naive (100 picks)", large, 100, "naive")
    return 0

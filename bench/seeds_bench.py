"""Seed selection: grouped lazy (CELF) greedy vs naive greedy peers on the same candidates, same run.

Paper scale is 3,419 occupation-task-type pairs (246 occupations, 891 DWAs, 16 patterns, 9 input
families); the large run is a synthetic pool 100x that size. Peers: the pure-Python naive greedy
(every remaining candidate evaluated every round) and, at 100x, the numpy-vectorised naive greedy.
Each comparison checks that picks and gains are identical and prints the ratio of wall time and of
gain evaluations. At 100x the pure-Python naive would take minutes for 300 picks, so it runs a
shorter prefix (``--naive-large-n``) against lazy on that same prefix. One-level CELF (no grouping,
``outer=()``, with the same exact keys, which at these counts are Fractions) is a reference row at
paper scale: it shows what the grouping saves.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from graphforge.seeds import selection as seeding


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


def _one_level(pool: list[seeding.Candidate], n: int) -> seeding.Selection:
    return seeding.greedy_lazy(pool, n, outer=())


PEERS: dict[str, Callable[[list[seeding.Candidate], int], seeding.Selection]] = {
    "naive (Python)": seeding.greedy_naive,
    "naive (numpy)": seeding.greedy_numpy,
    "one-level CELF": _one_level,
}


def compare(label: str, pool: list[seeding.Candidate], n: int, peers: list[str]) -> bool:
    """Lazy against each named peer on ``pool``; True when every peer gave the same picks and gains."""
    lazy, t_lazy = _timed(lambda: seeding.greedy_lazy(pool, n))
    print(f"{label}: {len(pool):,} candidates, select {n:,}")
    print(f"  {'lazy (grouped CELF)':<20} {t_lazy:9.3f} s  {lazy.evaluations:>14,} gain evaluations")
    all_same = True
    for peer in peers:
        peer_fn = PEERS[peer]
        base, t_base = _timed(lambda: peer_fn(pool, n))  # noqa: B023 - called before the next iteration
        same = lazy.order == base.order and lazy.gains == base.gains
        all_same &= same
        print(f"  {peer:<20} {t_base:9.3f} s  {base.evaluations:>14,} gain evaluations   "
              f"identical picks+gains: {same}; {peer}/lazy: wall {t_base / t_lazy:.1f}x, "
              f"evaluations {base.evaluations / max(1, lazy.evaluations):.1f}x")
    return all_same


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench seeds_bench")
    parser.add_argument("--pairs", type=int, default=3419)
    parser.add_argument("--scale", type=int, default=100, help="multiplier for the synthetic large pool")
    parser.add_argument("--large-n", type=int, default=300, help="seeds selected from the large pool")
    parser.add_argument("--naive-large-n", type=int, default=100,
                        help="picks for the pure-Python naive peer on the large pool (0 skips it)")
    parser.add_argument("--skip-large", action="store_true")
    args = parser.parse_args(argv)

    ok = True
    paper = synthetic_pool(args.pairs, occupations=246, task_types=891)
    everyone = ["naive (Python)", "naive (numpy)", "one-level CELF"]
    ok &= compare("paper scale (full ranking)", paper, len(paper), everyone)
    ok &= compare("paper scale (select 2,000)", paper, min(2000, len(paper)), everyone)
    if not args.skip_large:
        large = synthetic_pool(args.pairs * args.scale, occupations=246 * 4, task_types=891 * 2, seed=12)
        ok &= compare(f"{args.scale}x synthetic", large, args.large_n, ["naive (numpy)"])
        if args.naive_large_n:
            ok &= compare(f"{args.scale}x synthetic, pure-Python naive peer", large, args.naive_large_n,
                          ["naive (Python)", "naive (numpy)"])
    if not ok:
        raise SystemExit("a greedy diverged from the naive picks")
    return 0

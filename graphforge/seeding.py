"""Coverage-gain seed selection: naive and lazy (CELF) greedy with identical output, and rebalancing.

The gain of candidate s given the selected set S is ``Δ(s|S) = Σ_d 1/(1 + n_d(v_d(s)))`` over the
dimensions d (occupation, task type, execution pattern, input family), where ``n_d(v)`` counts the
selected seeds whose value on d is v. Ties break by a stable hash of the task id (then the seed id),
so the order never depends on input order or on Python's hash seed.
"""

from __future__ import annotations

import hashlib
import heapq
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

DIMENSIONS = ("occupation", "task_type", "pattern", "input_family")


def tie_key(task_id: str, seed_id: str = "") -> str:
    """Stable tie-break key: sha256 of the task id, then the seed id (smaller wins)."""
    return hashlib.sha256(task_id.encode("utf-8")).hexdigest() + "|" + seed_id


@dataclass(frozen=True)
class Candidate:
    key: str  # the seed id
    tie: str  # tie_key(task_id, seed_id)
    values: tuple[str, ...]  # one value per dimension, in DIMENSIONS order


@dataclass
class Selection:
    order: list[int]  # indices into the candidate list, in selection order
    gains: list[float]  # the gain each pick had when it was picked
    evaluations: int  # gain evaluations spent (the cost lazy evaluation saves)


@dataclass
class _Encoded:
    codes: list[tuple[int, ...]]  # per candidate, the value code on each dimension
    counts: list[list[int]]  # per dimension, n_d per value code
    ties: list[str]


def _encode(candidates: Sequence[Candidate], initial: Mapping[str, Mapping[str, int]] | None,
            dims: int) -> _Encoded:
    vocab: list[dict[str, int]] = [{} for _ in range(dims)]
    codes = [tuple(vocab[d].setdefault(c.values[d], len(vocab[d])) for d in range(dims)) for c in candidates]
    counts = [[0] * len(vocab[d]) for d in range(dims)]
    for d, name in enumerate(DIMENSIONS[:dims]):
        for value, n in (initial or {}).get(name, {}).items():
            if value in vocab[d]:
                counts[d][vocab[d][value]] = n
    return _Encoded(codes, counts, [c.tie for c in candidates])


def _gain(code: tuple[int, ...], counts: list[list[int]]) -> float:
    # Summed in a fixed dimension order: float rounding is monotone, so a stale gain computed with
    # smaller counts is always >= the fresh one, which is what makes the lazy bound sound.
    total = 0.0
    for d, v in enumerate(code):
        total += 1.0 / (1 + counts[d][v])
    return total


def _limit(n: int, total: int) -> int:
    if n < 0:
        raise ValueError("n must be >= 0")
    return min(n, total)


def greedy_naive(candidates: Sequence[Candidate], n: int,
                 initial: Mapping[str, Mapping[str, int]] | None = None) -> Selection:
    """Reference greedy: every round evaluates every remaining candidate."""
    dims = len(candidates[0].values) if candidates else len(DIMENSIONS)
    enc = _encode(candidates, initial, dims)
    remaining = set(range(len(candidates)))
    selection = Selection([], [], 0)
    for _ in range(_limit(n, len(candidates))):
        best, best_gain, best_tie = -1, -math.inf, ""
        for i in remaining:
            g = _gain(enc.codes[i], enc.counts)
            selection.evaluations += 1
            if g > best_gain or (g == best_gain and enc.ties[i] < best_tie):
                best, best_gain, best_tie = i, g, enc.ties[i]
        remaining.discard(best)
        _take(enc, best)
        selection.order.append(best)
        selection.gains.append(best_gain)
    return selection


def greedy_lazy(candidates: Sequence[Candidate], n: int,
                initial: Mapping[str, Mapping[str, int]] | None = None) -> Selection:
    """CELF lazy greedy: re-evaluates only the heap top; returns exactly greedy_naive's order.

    Gains only shrink as seeds are selected (each term 1/(1+n) falls as n grows), so a stale gain is
    an upper bound. The heap orders by (-bound, tie rank); a fresh top therefore beats every other
    candidate's true gain, and among equal gains it has the smallest tie key, as naive greedy picks.
    Candidates with identical values always have equal gains, so only the one with the smallest tie
    key of each such group is in the heap; the next member enters when it is picked.
    """
    dims = len(candidates[0].values) if candidates else len(DIMENSIONS)
    enc = _encode(candidates, initial, dims)
    selection = Selection([], [], 0)
    codes, counts = enc.codes, enc.counts
    # Groups of identical value tuples, each member list in tie-key order.
    groups: dict[tuple[int, ...], list[int]] = {}
    for i in sorted(range(len(candidates)), key=lambda i: enc.ties[i]):
        groups.setdefault(codes[i], []).append(i)
    members = list(groups.values())
    # Integer tie ranks compare much faster than the 80-character keys inside heap tuples.
    tie_rank = {i: r for r, i in enumerate(sorted(range(len(candidates)), key=lambda i: enc.ties[i]))}
    head = [0] * len(members)
    heap: list[tuple[float, int, int, int]] = [(-_gain(codes[m[0]], counts), tie_rank[m[0]], g, 0)
                                               for g, m in enumerate(members)]
    selection.evaluations += len(heap)
    heapq.heapify(heap)
    for round_ in range(_limit(n, len(candidates))):
        while True:
            neg, tie, g, stamp = heap[0]
            if stamp == round_:
                break
            # Re-evaluate in place: one sift instead of a pop and a push.
            heapq.heapreplace(heap, (-_gain(codes[members[g][head[g]]], counts), tie, g, round_))
            selection.evaluations += 1
        i = members[g][head[g]]
        _take(enc, i)
        selection.order.append(i)
        selection.gains.append(-neg)
        head[g] += 1
        if head[g] < len(members[g]):
            nxt = members[g][head[g]]
            heapq.heapreplace(heap, (-_gain(codes[nxt], counts), tie_rank[nxt], g, round_ + 1))
            selection.evaluations += 1
        else:
            heapq.heappop(heap)
    return selection


def greedy_numpy(candidates: Sequence[Candidate], n: int,
                 initial: Mapping[str, Mapping[str, int]] | None = None) -> Selection:
    """Naive greedy vectorised with numpy (each round is one pass over all candidates).

    Same order as greedy_naive: elementwise float64 adds happen in the same dimension order, and
    candidates are pre-sorted by tie key so argmax's first maximum is the smallest tie key.
    """
    dims = len(candidates[0].values) if candidates else len(DIMENSIONS)
    enc = _encode(candidates, initial, dims)
    by_tie = sorted(range(len(candidates)), key=lambda i: enc.ties[i])
    codes = np.array([enc.codes[i] for i in by_tie], dtype=np.int64).reshape(len(by_tie), dims)
    counts = [np.array(c, dtype=np.int64) for c in enc.counts]
    alive = np.ones(len(by_tie), dtype=bool)
    selection = Selection([], [], 0)
    for _ in range(_limit(n, len(candidates))):
        gains = np.zeros(len(by_tie))
        for d in range(dims):
            gains += 1.0 / (1 + counts[d][codes[:, d]])
        selection.evaluations += int(alive.sum())
        gains[~alive] = -np.inf
        j = int(np.argmax(gains))
        alive[j] = False
        for d in range(dims):
            counts[d][codes[j, d]] += 1
        selection.order.append(by_tie[j])
        selection.gains.append(float(gains[j]))
    return selection


def _take(enc: _Encoded, i: int) -> None:
    for d, v in enumerate(enc.codes[i]):
        enc.counts[d][v] += 1


def selected_counts(candidates: Sequence[Candidate], order: Sequence[int]) -> dict[str, Counter[str]]:
    """n_d(v) for the candidates in ``order``, per dimension name."""
    out: dict[str, Counter[str]] = {name: Counter() for name in DIMENSIONS}
    for i in order:
        for name, value in zip(DIMENSIONS, candidates[i].values, strict=False):
            out[name][value] += 1
    return out


@dataclass(frozen=True)
class RebalanceItem:
    index: int  # into the candidate list
    pattern: str
    sector: str  # "" when the occupation has no sector
    demand: str  # normalised work demand


@dataclass
class Rebalanced:
    order: list[int]
    pattern_quota: int
    relaxed_picks: int  # picks made after the pattern quota had to be lifted to reach n
    skipped_repeated_demand: int
    sector_rounds: int = 0
    per_pattern: dict[str, int] = field(default_factory=dict)


def rebalance(ranked: Sequence[RebalanceItem], n: int, demand_cap: int = 1) -> Rebalanced:
    """Pick ``n`` items from a greedy-ranked list: round-robin over sectors, equal pattern quotas.

    Each round visits sectors in the order of their best-ranked item and takes, per sector, its
    best-ranked remaining item whose pattern is under quota (ceil(n / patterns)) and whose
    normalised demand has been used fewer than ``demand_cap`` times. When no sector can contribute
    under the quota, the quota is lifted (counted as relaxed picks); the demand cap never is.
    """
    patterns = sorted({item.pattern for item in ranked})
    quota = math.ceil(n / len(patterns)) if patterns else 0
    queues: dict[str, list[RebalanceItem]] = {}
    for item in ranked:  # dict order == order of each sector's best-ranked item
        queues.setdefault(item.sector, []).append(item)
    per_pattern: Counter[str] = Counter()
    per_demand: Counter[str] = Counter()
    out = Rebalanced([], quota, 0, 0)
    repeated: set[int] = set()
    enforce_quota = True
    while len(out.order) < n:
        took = 0
        out.sector_rounds += 1
        for queue in queues.values():
            if len(out.order) >= n:
                break
            for pos, item in enumerate(queue):
                if per_demand[item.demand] >= demand_cap:
                    repeated.add(item.index)
                    continue
                if enforce_quota and per_pattern[item.pattern] >= quota:
                    continue
                del queue[pos]
                per_pattern[item.pattern] += 1
                per_demand[item.demand] += 1
                out.order.append(item.index)
                out.relaxed_picks += 0 if enforce_quota else 1
                took += 1
                break
        if took == 0:
            if not enforce_quota:
                break
            enforce_quota = False
    out.per_pattern = dict(per_pattern)
    out.skipped_repeated_demand = len(repeated)
    return out

"""Coverage-gain seed selection: naive, lazy and numpy greedy with identical output, and rebalancing.

The gain of candidate s given the selected set S is ``Δ(s|S) = Σ_d 1/(1 + n_d(v_d(s)))`` over the
dimensions d (occupation, task type, execution pattern, input family), where ``n_d(v)`` counts the
selected seeds whose value on d is v. Gains are compared as exact rationals, so two gains tie exactly
when they are mathematically equal (1/2 + 1/6 ties 1/3 + 1/3, whatever the float rounding); ties break
by a stable hash of the task id (then the seed id), so the order never depends on input order or on
Python's hash seed. The reported gain is the exact rational rounded once to the nearest double.
"""

from __future__ import annotations

import hashlib
import heapq
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

DIMENSIONS = ("occupation", "task_type", "pattern", "input_family")
METHODS = ("lazy", "naive", "numpy")
# Float sums of reciprocals are off by a few ulps at most; closer than this, the naive greedy decides
# exactly with integers.
_NEAR = 1e-9
_EXACT_DOUBLE = 2 ** 53  # integers below this convert to float64 exactly


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
    gains: list[float]  # the gain each pick had when it was picked (exact rational, rounded once)
    evaluations: int  # gain evaluations spent (the cost lazy evaluation saves)
    method: str = ""


@dataclass
class _Encoded:
    codes: list[tuple[int, ...]]  # per candidate, the value code on each dimension
    counts: list[list[int]]  # per dimension, n_d per value code
    ties: list[str]


def _encode(candidates: Sequence[Candidate], initial: Mapping[str, Mapping[str, int]] | None,
            dims: int) -> _Encoded:
    # Column by column with C-level map/zip: at 100x paper scale this was most of the lazy run time.
    columns: list[list[int]] = []
    counts: list[list[int]] = []
    raw = list(zip(*[c.values[:dims] for c in candidates], strict=True)) if candidates else [()] * dims
    for d in range(dims):
        column = raw[d]
        vocab = {value: code for code, value in enumerate(dict.fromkeys(column))}
        columns.append(list(map(vocab.__getitem__, column)))
        per_value = [0] * len(vocab)
        name = DIMENSIONS[d] if d < len(DIMENSIONS) else ""
        for value, n in (initial or {}).get(name, {}).items():
            if value in vocab:
                per_value[vocab[value]] = n
        counts.append(per_value)
    codes: list[tuple[int, ...]] = list(zip(*columns, strict=True)) if dims else [() for _ in candidates]
    return _Encoded(codes, counts, [c.tie for c in candidates])


def _exact(code: tuple[int, ...], counts: list[list[int]], dims: Sequence[int]) -> tuple[int, int]:
    """The gain over ``dims`` as an exact fraction (numerator, denominator), not reduced."""
    num, den = 0, 1
    for d in dims:
        c1 = 1 + counts[d][code[d]]
        num = num * c1 + den
        den *= c1
    return num, den


def _limit(n: int, total: int) -> int:
    if n < 0:
        raise ValueError("n must be >= 0")
    return min(n, total)


def _dims_of(candidates: Sequence[Candidate]) -> int:
    return len(candidates[0].values) if candidates else len(DIMENSIONS)


def greedy(candidates: Sequence[Candidate], n: int, initial: Mapping[str, Mapping[str, int]] | None = None,
           method: str = "lazy") -> Selection:
    """Run the greedy with ``method`` (one of METHODS); every method returns the same picks and gains."""
    if method not in METHODS:
        raise ValueError(f"unknown greedy method {method!r}; expected one of {', '.join(METHODS)}")
    return {"lazy": greedy_lazy, "naive": greedy_naive, "numpy": greedy_numpy}[method](candidates, n, initial)


def greedy_naive(candidates: Sequence[Candidate], n: int,
                 initial: Mapping[str, Mapping[str, int]] | None = None) -> Selection:
    """Reference greedy: every round evaluates every remaining candidate.

    A float sum of cached reciprocals ranks candidates; when two sums are within _NEAR of each other
    the comparison is redone exactly with integer cross-multiplication, then by tie key.
    """
    dims = _dims_of(candidates)
    enc = _encode(candidates, initial, dims)
    codes, counts, ties = enc.codes, enc.counts, enc.ties
    every = range(dims)
    recip = [[1.0 / (1 + c) for c in per_dim] for per_dim in counts]
    remaining = set(range(len(candidates)))
    selection = Selection([], [], 0, "naive")
    for _ in range(_limit(n, len(candidates))):
        best, best_g, best_tie = -1, -math.inf, ""
        best_exact: tuple[int, int] | None = None
        for i in remaining:
            code = codes[i]
            g = 0.0
            for d, v in enumerate(code):
                g += recip[d][v]
            if g < best_g - _NEAR:
                continue
            if g > best_g + _NEAR:
                best, best_g, best_tie, best_exact = i, g, ties[i], None
                continue
            if best_exact is None:
                best_exact = _exact(codes[best], counts, every)
            num, den = _exact(code, counts, every)
            lhs, rhs = num * best_exact[1], best_exact[0] * den
            if lhs > rhs or (lhs == rhs and ties[i] < best_tie):
                best, best_g, best_tie, best_exact = i, g, ties[i], (num, den)
        selection.evaluations += len(remaining)
        num, den = _exact(codes[best], counts, every)
        remaining.discard(best)
        for d, v in enumerate(codes[best]):
            counts[d][v] += 1
            recip[d][v] = 1.0 / (1 + counts[d][v])
        selection.order.append(best)
        selection.gains.append(num / den)
    return selection


class _Descending:
    """An exact gain num/den that sorts larger first; heap keys reach it only when their floats tie."""

    __slots__ = ("den", "num")

    def __init__(self, num: int, den: int) -> None:
        self.num, self.den = num, den

    def __lt__(self, other: _Descending) -> bool:
        return self.num * other.den > other.num * self.den

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Descending) and self.num * other.den == other.num * self.den

    __hash__ = None  # type: ignore[assignment]  # mutable-free but compared by value, never hashed


def _combine(code_arr: np.ndarray, dims: Sequence[int], sizes: Sequence[int]) -> tuple[np.ndarray, int]:
    """Dense ids 0..k-1 of each candidate's value combination on ``dims``, and k."""
    key = np.zeros(code_arr.shape[0], dtype=np.int64)
    span = 1
    for d in dims:
        key = key * max(1, sizes[d]) + code_arr[:, d]
        span *= max(1, sizes[d])
        if span > 1 << 24:  # keep the key range small enough to count with bincount
            _, key = np.unique(key, return_inverse=True)
            key = key.reshape(-1).astype(np.int64)
            span = int(key.max()) + 1 if key.size else 1
    present = np.bincount(key, minlength=span) > 0
    dense = np.cumsum(present) - 1
    return dense[key], int(present.sum())


def _outer_dims(code_arr: np.ndarray, sizes: Sequence[int]) -> tuple[int, ...]:
    """Dimensions with few values, as many as keep the number of distinct value combinations small.

    Every pick lowers the gain of every candidate that shares its pattern or input family, a large
    share of the pool; grouping candidates by those values lets one refresh per group replace
    thousands of per-candidate refreshes.
    """
    cap = max(256, math.isqrt(code_arr.shape[0]))
    chosen: list[int] = []
    for d in sorted(range(len(sizes)), key=lambda d: (sizes[d], d)):
        if _combine(code_arr, [*chosen, d], sizes)[1] > cap:
            break
        chosen.append(d)
    return tuple(sorted(chosen))


def greedy_lazy(candidates: Sequence[Candidate], n: int,
                initial: Mapping[str, Mapping[str, int]] | None = None,
                outer: Sequence[int] | None = None) -> Selection:
    """Two-level lazy (CELF) greedy; returns exactly greedy_naive's picks and gains.

    Candidates are grouped by their values on the few-valued ``outer`` dimensions (by default chosen
    from the data: pattern and input family). Within a group every member shares the outer part of
    the gain, so members rank by the exact inner part (occupation, task type) alone: a per-group
    CELF heap keyed by the inner gain only goes stale for members sharing the picked occupation or
    task type. A second CELF heap ranks groups by their best member's full gain. Gains only shrink as
    seeds are selected and a group's best only worsens, so every stored key is a bound and a fresh
    heap top is the naive pick, ties included (keys are (-gain, tie rank), compared exactly).
    """
    total = len(candidates)
    dims = _dims_of(candidates)
    limit = _limit(n, total)
    selection = Selection([], [], 0, "lazy")
    if limit == 0:
        return selection
    enc = _encode(candidates, initial, dims)
    codes, counts = enc.codes, enc.counts
    by_tie = sorted(range(total), key=enc.ties.__getitem__)  # rank -> candidate
    code_arr = np.array(codes, dtype=np.int64).reshape(total, dims)
    sizes = [len(c) for c in counts]
    outer_dims = _outer_dims(code_arr, sizes) if outer is None else tuple(sorted(set(outer)))
    inner_dims = tuple(d for d in range(dims) if d not in outer_dims)
    every = range(dims)
    # Inner keys are the exact inner gain rounded once to a double. Two different inner gains differ
    # by at least 1/(den1*den2); while that exceeds the double spacing the rounded keys keep their
    # exact order and equal gains get equal keys. Beyond it (huge counts) keys are exact Fractions.
    inner_den = math.prod(1 + max(counts[d], default=0) + limit for d in inner_dims)
    exact_keys = inner_den * inner_den * max(1, len(inner_dims)) >= 2 ** 50

    def inner_key(i: int) -> float | Fraction:
        num, den = _exact(codes[i], counts, inner_dims)
        return Fraction(-num, den) if exact_keys else -(num / den)

    rank_arr = np.empty(total, dtype=np.int64)
    rank_arr[np.asarray(by_tie, dtype=np.int64)] = np.arange(total)
    combo_arr, n_groups = _combine(code_arr, outer_dims, sizes)
    # Each group's list sorted by (key, tie rank) is already a heap.
    if exact_keys:
        order = np.lexsort((rank_arr, combo_arr))
        entries = [(inner_key(i), r) for i, r in zip(order.tolist(), rank_arr[order].tolist(), strict=True)]
    else:  # the same correctly rounded division as inner_key, for the whole pool at once
        num_a, den_a = np.zeros(total, dtype=np.int64), np.ones(total, dtype=np.int64)
        for d in inner_dims:
            c1 = np.asarray(counts[d], dtype=np.int64)[code_arr[:, d]] + 1
            num_a, den_a = num_a * c1 + den_a, den_a * c1
        key_arr = -(num_a / den_a)
        order = np.lexsort((rank_arr, key_arr, combo_arr))
        entries = list(zip(key_arr[order].tolist(), rank_arr[order].tolist(), strict=True))
    selection.evaluations += total
    cuts = [0, *np.cumsum(np.bincount(combo_arr, minlength=n_groups)).tolist()]
    heaps = [entries[a:b] for a, b in zip(cuts, cuts[1:], strict=False)]
    if exact_keys:
        for h in heaps:
            heapq.heapify(h)

    def group_best(g: int, stamp: int, check: bool = True) -> tuple[float, _Descending, int, int, int]:
        # Key of group g's best member with the counts as of pick ``stamp``; ``check=False`` when
        # its heap top is known fresh (nothing was picked since the inner keys were computed).
        h = heaps[g]
        while check:
            key, rank = h[0]
            fresh = inner_key(by_tie[rank])
            selection.evaluations += 1
            if fresh == key:
                break
            heapq.heapreplace(h, (fresh, rank))
        rank = h[0][1]
        num, den = _exact(codes[by_tie[rank]], counts, every)
        selection.evaluations += 1
        return -(num / den), _Descending(num, den), rank, g, stamp

    groups = [group_best(g, 0, check=False) for g in range(len(heaps))]
    heapq.heapify(groups)
    for round_ in range(limit):
        while True:
            stored = groups[0]
            if stored[4] == round_:  # evaluated since the last pick: no count has changed
                current = stored
                break
            current = group_best(stored[3], round_)
            if current[2] == stored[2] and current[1] == stored[1]:
                break
            heapq.heapreplace(groups, current)
        g, i = current[3], by_tie[current[2]]
        heapq.heappop(heaps[g])
        for d, v in enumerate(codes[i]):
            counts[d][v] += 1
        selection.order.append(i)
        selection.gains.append(-current[0])
        if not heaps[g]:
            heapq.heappop(groups)
        elif round_ + 1 < limit:
            heapq.heapreplace(groups, group_best(g, round_ + 1))
    return selection


def greedy_numpy(candidates: Sequence[Candidate], n: int,
                 initial: Mapping[str, Mapping[str, int]] | None = None) -> Selection:
    """Naive greedy vectorised with numpy (each round is one pass over all candidates).

    Gains are exact int64 fractions num/den; their float64 quotient is correctly rounded, so float
    order is exact order except where two different gains round to the same double, which the tie
    check below resolves exactly. Candidates are pre-sorted by tie key, so the first maximum wins.
    Falls back to greedy_naive when counts could grow past exact int64/float64 range.
    """
    dims = _dims_of(candidates)
    enc = _encode(candidates, initial, dims)
    limit = _limit(n, len(candidates))
    if dims * math.prod(1 + max(c, default=0) + limit for c in enc.counts) >= _EXACT_DOUBLE:
        fallback = greedy_naive(candidates, n, initial)
        fallback.method = "naive (numpy range exceeded)"
        return fallback
    by_tie = sorted(range(len(candidates)), key=enc.ties.__getitem__)
    codes = np.array([enc.codes[i] for i in by_tie], dtype=np.int64).reshape(len(by_tie), dims)
    counts = [np.array(c, dtype=np.int64) for c in enc.counts]
    alive = np.ones(len(by_tie), dtype=bool)
    selection = Selection([], [], 0, "numpy")
    for _ in range(limit):
        num = np.zeros(len(by_tie), dtype=np.int64)
        den = np.ones(len(by_tie), dtype=np.int64)
        for d in range(dims):
            c1 = counts[d][codes[:, d]] + 1
            num = num * c1 + den
            den *= c1
        gains = num / den
        gains[~alive] = -np.inf
        selection.evaluations += len(by_tie) - len(selection.order)
        top = np.flatnonzero(gains == gains.max())
        j = int(top[0])
        if len(top) > 1:
            q = np.gcd(num[top], den[top])
            rn, rd = num[top] // q, den[top] // q
            if (rn != rn[0]).any() or (rd != rd[0]).any():  # distinct gains rounded to one double
                j = int(max(top.tolist(), key=lambda t: (Fraction(int(num[t]), int(den[t])), -t)))
        alive[j] = False
        for d in range(dims):
            counts[d][codes[j, d]] += 1
        selection.order.append(by_tie[j])
        selection.gains.append(float(gains[j]))
    return selection


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

"""MinHash signatures and banded LSH in numpy: candidate near-duplicate pairs without all-pairs set work."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from graphforge.audit.ngrams import U64, splitmix64

_EMPTY = np.iinfo(np.uint64).max
_CHUNK = 1 << 15  # shingles mixed per step: keeps the num_perm x chunk scratch matrix near 32 MiB


class MinHasher:
    """``num_perm`` independent hash functions h_i(x) = mix(x xor seed_i); a signature keeps each minimum."""

    def __init__(self, num_perm: int = 128, seed: int = 1) -> None:
        if num_perm < 2:
            raise ValueError("num_perm must be at least 2")
        self.num_perm = num_perm
        self.seed = seed
        self.seeds: U64 = np.random.default_rng(seed).integers(0, _EMPTY, size=num_perm, dtype=np.uint64,
                                                               endpoint=True)

    def signature(self, shingles: U64) -> U64:
        """Signature of one shingle set; an empty set gets all-max values (similar to nothing)."""
        sig = np.full(self.num_perm, _EMPTY, dtype=np.uint64)
        for start in range(0, len(shingles), _CHUNK):
            chunk = shingles[start:start + _CHUNK]
            mixed = splitmix64(chunk[None, :] ^ self.seeds[:, None])
            np.minimum(sig, mixed.min(axis=1), out=sig)
        return sig

    def signatures(self, shingle_sets: Iterable[U64]) -> U64:
        """Stacked signatures, one row per shingle set."""
        rows = [self.signature(s) for s in shingle_sets]
        return np.vstack(rows) if rows else np.empty((0, self.num_perm), dtype=np.uint64)


def estimated_jaccard(a: U64, b: U64) -> float:
    """Fraction of agreeing signature positions: an unbiased estimate of the sets' Jaccard similarity."""
    if bool((a == _EMPTY).all()) or bool((b == _EMPTY).all()):
        return 0.0
    return float(np.mean(a == b))


def exact_jaccard(a: U64, b: U64) -> float:
    """Jaccard similarity of two sorted unique hash arrays."""
    if len(a) == 0 and len(b) == 0:
        return 0.0
    inter = len(np.intersect1d(a, b, assume_unique=True))
    return inter / (len(a) + len(b) - inter)


def _collision_probability(s: npt.NDArray[np.float64], bands: int, rows: int) -> npt.NDArray[np.float64]:
    return 1.0 - (1.0 - s ** rows) ** bands


def lsh_params(threshold: float, num_perm: int, fp_weight: float = 0.5,
               fn_weight: float = 0.5) -> tuple[int, int]:
    """(bands, rows) with bands*rows <= num_perm minimising the weighted false-positive area below the
    threshold plus false-negative area above it, under the S-curve 1-(1-s^r)^b."""
    if not 0.0 < threshold < 1.0:
        raise ValueError("threshold must lie strictly between 0 and 1")
    below = np.linspace(0.0, threshold, 201)
    above = np.linspace(threshold, 1.0, 201)
    if num_perm < 1:
        raise ValueError("num_perm must be at least 1")
    best = (float("inf"), 1, 1)
    for bands in range(1, num_perm + 1):
        for rows in range(1, num_perm // bands + 1):
            fp = np.trapezoid(_collision_probability(below, bands, rows), below)
            fn = np.trapezoid(1.0 - _collision_probability(above, bands, rows), above)
            error = fp_weight * fp + fn_weight * fn
            if error < best[0] - 1e-12:
                best = (float(error), bands, rows)
    return best[1], best[2]


class LSHIndex:
    """Banded LSH over MinHash signatures: documents colliding in any band become candidate pairs."""

    def __init__(self, bands: int, rows: int) -> None:
        self.bands = bands
        self.rows = rows
        self._buckets: list[dict[int, list[int]]] = [defaultdict(list) for _ in range(bands)]
        self._keys: list[set[int]] = [set() for _ in range(bands)]

    @classmethod
    def for_threshold(cls, threshold: float, num_perm: int) -> LSHIndex:
        return cls(*lsh_params(threshold, num_perm))

    def band_keys(self, signatures: U64) -> U64:
        """One 64-bit key per (document, band): the band's rows folded through the mixer."""
        n = signatures.shape[0]
        keys = np.zeros((n, self.bands), dtype=np.uint64)
        with np.errstate(over="ignore"):
            for b in range(self.bands):
                acc = np.full(n, np.uint64(b), dtype=np.uint64)
                for r in range(self.rows):
                    acc = splitmix64(acc ^ signatures[:, b * self.rows + r])
                keys[:, b] = acc
        return keys

    def insert(self, signatures: U64, ids: Sequence[int] | None = None) -> None:
        """Index reference documents (the benchmark side), identified by position or by ``ids``."""
        keys = self.band_keys(signatures)
        ids = list(range(signatures.shape[0])) if ids is None else list(ids)
        for b in range(self.bands):
            bucket, seen = self._buckets[b], self._keys[b]
            for doc, key in zip(ids, keys[:, b].tolist(), strict=True):
                bucket[key].append(doc)
                seen.add(key)

    def query(self, signatures: U64) -> list[set[int]]:
        """For each query signature, the indexed documents it collides with in at least one band."""
        keys = self.band_keys(signatures)
        found: list[set[int]] = [set() for _ in range(signatures.shape[0])]
        for b in range(self.bands):
            if not self._keys[b]:
                continue
            known = np.fromiter(self._keys[b], dtype=np.uint64, count=len(self._keys[b]))
            column = keys[:, b]
            # Vectorised pre-filter: only rows whose band key exists anywhere touch the dict.
            for row in np.flatnonzero(np.isin(column, known)).tolist():
                found[row].update(self._buckets[b][int(column[row])])
        return found

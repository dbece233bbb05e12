"""Normalised tokens, hashed word n-gram shingles, and an exact shared-n-gram index over benchmark texts."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

U64 = npt.NDArray[np.uint64]

NGRAM_SIZE = 13  # the paper's (and GPT-3's) decontamination window
_TOKEN_RE = re.compile(r"\w+")
# Odd 64-bit multiplier of the polynomial rolling hash; wrap-around arithmetic is the modulus 2**64.
_ROLL = np.uint64(0x9E3779B97F4A7C15)


def normalise(text: str) -> str:
    """NFKC-fold and casefold, so full-width digits, ligatures and case differences do not hide a copy."""
    return unicodedata.normalize("NFKC", text).casefold()


def tokenise(text: str) -> list[str]:
    """Normalised word tokens: runs of letters, digits and underscores; punctuation and spacing dropped."""
    return _TOKEN_RE.findall(normalise(text))


def splitmix64(x: U64) -> U64:
    """Bijective 64-bit mixer (SplitMix64 finaliser) applied element-wise; spreads structured hashes."""
    with np.errstate(over="ignore"):
        z = x + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


class TokenHasher:
    """Maps tokens to stable 64-bit ids (blake2b, so runs and processes agree), caching the vocabulary."""

    def __init__(self) -> None:
        self._cache: dict[str, int] = {}

    def __call__(self, tokens: Sequence[str]) -> U64:
        cache = self._cache
        values = [cache.get(tok) for tok in tokens]  # one dict probe per token: the hot loop
        if None in values:
            for i, tok in enumerate(tokens):
                if values[i] is None:
                    value = cache.get(tok)
                    if value is None:
                        digest = hashlib.blake2b(tok.encode("utf-8"), digest_size=8).digest()
                        value = cache[tok] = int.from_bytes(digest, "little")
                    values[i] = value
        return np.array(values, dtype=np.uint64)

    def __len__(self) -> int:
        return len(self._cache)


def ngram_hashes(token_ids: U64, n: int = NGRAM_SIZE) -> U64:
    """Hash of every window of n consecutive tokens, in text order (len(tokens) - n + 1 values)."""
    count = len(token_ids) - n + 1
    if count <= 0:
        return np.empty(0, dtype=np.uint64)
    with np.errstate(over="ignore"):
        acc = np.zeros(count, dtype=np.uint64)
        for i in range(n):
            acc = acc * _ROLL + token_ids[i:i + count]
    return splitmix64(acc)


def shingle_set(token_ids: U64, n: int = NGRAM_SIZE) -> U64:
    """Sorted unique n-gram hashes of one text (its shingle set)."""
    return np.unique(ngram_hashes(token_ids, n))


@dataclass(frozen=True)
class Shingled:
    """One text reduced to what the audit needs: token count and its sorted unique n-gram hashes."""

    tokens: int
    shingles: U64


def shingle_text(text: str, hasher: TokenHasher, n: int = NGRAM_SIZE) -> Shingled:
    ids = hasher(tokenise(text))
    return Shingled(tokens=len(ids), shingles=shingle_set(ids, n))


class ExactIndex:
    """Inverted index from n-gram hash to the reference documents holding it (sorted arrays, no dicts).

    Querying a training text costs one binary search per distinct n-gram, so auditing N training files
    against M benchmark files is linear in the training tokens instead of N x M set intersections.
    """

    def __init__(self, shingle_sets: Sequence[U64]) -> None:
        sizes = np.array([len(s) for s in shingle_sets], dtype=np.int64)
        keys = np.concatenate(list(shingle_sets)) if shingle_sets else np.empty(0, dtype=np.uint64)
        docs = np.repeat(np.arange(len(shingle_sets), dtype=np.int64), sizes)
        order = np.argsort(keys, kind="stable")
        self.keys: U64 = keys[order]
        self.docs = docs[order]
        self.sizes = sizes
        self.n_docs = len(shingle_sets)

    def shared_counts(self, shingles: U64) -> npt.NDArray[np.int64]:
        """For one text's unique n-gram hashes: how many each reference document shares with it."""
        if self.n_docs == 0 or len(shingles) == 0:
            return np.zeros(self.n_docs, dtype=np.int64)
        left = np.searchsorted(self.keys, shingles, side="left")
        right = np.searchsorted(self.keys, shingles, side="right")
        hits = right > left
        if not hits.any():
            return np.zeros(self.n_docs, dtype=np.int64)
        left, right = left[hits], right[hits]
        lengths = right - left
        # Expand every [left, right) run into positions without a Python loop.
        starts = np.repeat(left - np.cumsum(lengths) + lengths, lengths)
        positions = starts + np.arange(int(lengths.sum()))
        return np.bincount(self.docs[positions], minlength=self.n_docs).astype(np.int64)


def shared_passages(text: str, shared: U64, n: int = NGRAM_SIZE, limit: int = 5,
                    max_chars: int = 400) -> list[str]:
    """The longest runs of ``text`` covered by shared n-grams, as normalised token strings (for reports)."""
    tokens = tokenise(text)
    hashes = ngram_hashes(TokenHasher()(tokens), n)
    if len(hashes) == 0 or len(shared) == 0:
        return []
    covered = np.isin(hashes, shared)
    runs: list[tuple[int, int]] = []
    start = -1
    for i, flag in enumerate(covered.tolist() + [False]):
        if flag and start < 0:
            start = i
        elif not flag and start >= 0:
            runs.append((start, i - 1 + n))  # window i-1 ends at token i-1+n (exclusive)
            start = -1
    runs.sort(key=lambda r: (r[0] - r[1], r[0]))
    passages = []
    for begin, end in runs[:limit]:
        passage = " ".join(tokens[begin:end])
        passages.append(passage if len(passage) <= max_chars else passage[:max_chars - 3] + "...")
    return passages

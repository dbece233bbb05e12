"""The text-level audit as a pure function: every training text against every benchmark text.

Exact path: an inverted index over the benchmark's n-gram hashes answers, per training text, how many
n-grams it shares with each benchmark text (complete, linear in training tokens). MinHash path: banded
LSH over signatures proposes whole-document near-duplicates, verified by exact Jaccard. Both scale to
tens of thousands of training files because neither compares every pair of sets.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from pydantic import BaseModel

from graphforge.audit.minhash import LSHIndex, MinHasher, estimated_jaccard, exact_jaccard
from graphforge.audit.ngrams import (
    NGRAM_SIZE,
    ExactIndex,
    Shingled,
    TokenHasher,
    shared_passages,
    shingle_text,
)

Method = Literal["exact", "minhash", "both"]


@dataclass(frozen=True)
class TrainingDoc:
    sha256: str
    text: str
    paths: Sequence[str] = ()
    valid: bool = True  # a broken (invalid) file: checked for identical bytes, never counted as training


@dataclass(frozen=True)
class BenchmarkDoc:
    key: str  # BenchmarkFile sha256, or BenchmarkTask task_key for prompts
    kind: Literal["file", "prompt"]
    label: str  # a path inside the benchmark, or the task id
    text: str
    benchmarks: Sequence[str] = ()


class PairFinding(BaseModel):
    """One (training file, benchmark text) pair that shares n-grams or was proposed by MinHash."""

    training_sha256: str
    training_paths: list[str]
    benchmark_key: str
    benchmark_kind: str
    benchmark_label: str
    shared_ngrams: int
    containment: float  # shared / benchmark text's n-grams: how much of the benchmark text was copied
    jaccard: float
    minhash_estimate: float | None = None
    found_by: list[str]
    passages: list[str] = []  # the longest shared runs, normalised (filled for the top-k only)


class HashOverlap(BaseModel):
    sha256: str
    training_paths: list[str]
    benchmark_labels: list[str]


class OverlapFindings(BaseModel):
    ngram_size: int
    method: str
    training_files: int  # valid files only: broken files are not training material
    training_tokens: int
    training_too_short: int  # texts with fewer tokens than one n-gram: nothing to compare
    benchmark_files: int
    benchmark_prompts: int
    benchmark_tokens: int
    hash_overlaps: list[HashOverlap]
    pairs: list[PairFinding]  # every pair sharing at least one n-gram, plus verified MinHash pairs
    minhash_candidates: int
    training_invalid: int = 0  # broken files seen (identical-bytes check only)
    lsh_bands: int | None = None
    lsh_rows: int | None = None


@dataclass
class _Acc:
    pairs: dict[tuple[str, int], PairFinding] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)


def find_overlaps(training: Iterable[TrainingDoc], benchmark: Sequence[BenchmarkDoc],
                  benchmark_sha256s: dict[str, list[str]], *, ngram_size: int = NGRAM_SIZE,
                  method: Method = "both", minhash_threshold: float = 0.5, num_perm: int = 128,
                  top_k: int = 20, seed: int = 1) -> OverlapFindings:
    """Compare every training text with every benchmark text.

    Args:
        benchmark_sha256s: benchmark file sha256 -> its labels, for the file-level (identical bytes) check.
    """
    hasher = TokenHasher()
    bench = [shingle_text(d.text, hasher, ngram_size) for d in benchmark]
    index = ExactIndex([b.shingles for b in bench]) if method in ("exact", "both") else None
    minhasher = lsh = bench_sigs = None
    if method in ("minhash", "both"):
        minhasher = MinHasher(num_perm, seed)
        bench_sigs = minhasher.signatures(b.shingles for b in bench)
        lsh = LSHIndex.for_threshold(minhash_threshold, num_perm)
        lsh.insert(bench_sigs)

    acc = _Acc()
    hash_overlaps: list[HashOverlap] = []
    files = tokens = too_short = candidates = invalid = 0
    for doc in training:
        if doc.sha256 in benchmark_sha256s:
            hash_overlaps.append(HashOverlap(sha256=doc.sha256, training_paths=sorted(doc.paths),
                                             benchmark_labels=sorted(benchmark_sha256s[doc.sha256])))
        if not doc.valid:
            invalid += 1
            continue
        files += 1
        item = shingle_text(doc.text, hasher, ngram_size)
        tokens += item.tokens
        if len(item.shingles) == 0:
            too_short += 1
            continue
        if index is not None:
            counts = index.shared_counts(item.shingles)
            for j in np.flatnonzero(counts).tolist():
                _add(acc, doc, j, benchmark[j], bench[j], item, int(counts[j]), "exact")
        if minhasher is not None and lsh is not None and bench_sigs is not None:
            sig = minhasher.signature(item.shingles)
            found = lsh.query(sig[None, :])[0]
            candidates += len(found)
            for j in sorted(found):
                shared = len(np.intersect1d(item.shingles, bench[j].shingles, assume_unique=True))
                if exact_jaccard(item.shingles, bench[j].shingles) < minhash_threshold:
                    continue  # an LSH false positive: verification drops it
                pair = _add(acc, doc, j, benchmark[j], bench[j], item, shared, "minhash")
                acc.pairs[(doc.sha256, j)] = pair.model_copy(
                    update={"minhash_estimate": round(estimated_jaccard(sig, bench_sigs[j]), 4)})

    pairs = sorted(acc.pairs.values(), key=lambda p: (-p.shared_ngrams, -p.containment, p.training_sha256,
                                                       p.benchmark_key))
    position: dict[tuple[str, str], int] = {(d.kind, d.key): k for k, d in enumerate(benchmark)}
    for i, pair in enumerate(pairs[:top_k]):
        j = position[(pair.benchmark_kind, pair.benchmark_key)]
        shared_hashes = np.intersect1d(
            shingle_text(acc.texts[pair.training_sha256], TokenHasher(), ngram_size).shingles,
            bench[j].shingles,
            assume_unique=True,
        )
        pairs[i] = pair.model_copy(
            update={"passages": shared_passages(benchmark[j].text, shared_hashes, ngram_size)}
        )
    return OverlapFindings(
        ngram_size=ngram_size,
        method=method,
        training_files=files,
        training_tokens=tokens,
        training_too_short=too_short,
        benchmark_files=sum(1 for d in benchmark if d.kind == "file"),
        benchmark_prompts=sum(1 for d in benchmark if d.kind == "prompt"),
        benchmark_tokens=sum(b.tokens for b in bench),
        hash_overlaps=hash_overlaps,
        pairs=pairs,
        minhash_candidates=candidates,
        training_invalid=invalid,
        lsh_bands=lsh.bands if lsh else None,
        lsh_rows=lsh.rows if lsh else None,
    )


def _add(acc: _Acc, doc: TrainingDoc, j: int, bdoc: BenchmarkDoc, bsh: Shingled, item: Shingled, shared: int,
         how: str) -> PairFinding:
    key = (doc.sha256, j)
    existing = acc.pairs.get(key)
    if existing is not None:
        found_by = sorted({*existing.found_by, how})
        pair = existing.model_copy(update={"found_by": found_by})
    else:
        union = len(item.shingles) + len(bsh.shingles) - shared
        pair = PairFinding(
            training_sha256=doc.sha256,
            training_paths=sorted(doc.paths),
            benchmark_key=bdoc.key,
            benchmark_kind=bdoc.kind,
            benchmark_label=bdoc.label,
            shared_ngrams=shared,
            containment=round(shared / max(1, len(bsh.shingles)), 6),
            jaccard=round(shared / max(1, union), 6),
            found_by=[how],
        )
    acc.pairs[key] = pair
    acc.texts[doc.sha256] = doc.text
    return pair

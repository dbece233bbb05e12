"""MinHash signatures, LSH banding and candidate search (numpy), checked against exact Jaccard."""

from __future__ import annotations

import numpy as np
import pytest

from graphforge.audit.minhash import LSHIndex, MinHasher, estimated_jaccard, exact_jaccard, lsh_params
from graphforge.audit.overlap import BenchmarkDoc, TrainingDoc, find_overlaps


def _sets(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = np.unique(rng.integers(0, 2**63, 2000, dtype=np.uint64))
    b = np.unique(np.concatenate([a[:1500], rng.integers(0, 2**63, 500, dtype=np.uint64)]))
    return a, b


def test_estimate_is_close_to_exact_jaccard() -> None:
    a, b = _sets()
    hasher = MinHasher(num_perm=256, seed=3)
    exact = exact_jaccard(a, b)
    assert abs(estimated_jaccard(hasher.signature(a), hasher.signature(b)) - exact) < 0.1


def test_identical_sets_agree_everywhere_and_empty_sets_match_nothing() -> None:
    a, _ = _sets()
    hasher = MinHasher(num_perm=64)
    assert estimated_jaccard(hasher.signature(a), hasher.signature(a.copy())) == 1.0
    empty = hasher.signature(np.empty(0, dtype=np.uint64))
    assert estimated_jaccard(empty, empty) == 0.0


def test_signatures_are_reproducible_for_a_seed() -> None:
    a, _ = _sets()
    assert np.array_equal(MinHasher(32, seed=9).signature(a), MinHasher(32, seed=9).signature(a))
    assert not np.array_equal(MinHasher(32, seed=9).signature(a), MinHasher(32, seed=10).signature(a))


@pytest.mark.parametrize("threshold", [0.3, 0.5, 0.8])
def test_lsh_params_fit_the_budget_and_centre_the_s_curve(threshold: float) -> None:
    bands, rows = lsh_params(threshold, 128)
    assert bands * rows <= 128
    # The S-curve's steepest point (1/b)^(1/r) lies near the threshold.
    assert abs((1 / bands) ** (1 / rows) - threshold) < 0.2


def test_lower_thresholds_use_more_bands() -> None:
    assert lsh_params(0.3, 128)[0] > lsh_params(0.8, 128)[0]


def test_lsh_finds_the_near_duplicate_and_not_the_stranger() -> None:
    a, b = _sets()
    stranger = np.unique(np.random.default_rng(7).integers(0, 2**63, 2000, dtype=np.uint64))
    hasher = MinHasher(128)
    index = LSHIndex.for_threshold(0.5, 128)
    index.insert(hasher.signatures([a, stranger]))
    assert index.query(hasher.signatures([b]))[0] == {0}


def test_minhash_and_exact_methods_agree_on_a_whole_document_copy() -> None:
    text = " ".join(f"t{i}" for i in range(300))
    near = " ".join(f"t{i}" for i in range(20, 300)) + " an added closing line"
    bench = [BenchmarkDoc(key="k", kind="file", label="f", text=text),
             BenchmarkDoc(key="j", kind="file", label="g", text=" ".join(f"u{i}" for i in range(300)))]
    training = [TrainingDoc("n", near), TrainingDoc("o", " ".join(f"v{i}" for i in range(300)))]
    exact = find_overlaps(training, bench, {}, method="exact")
    minhash = find_overlaps(training, bench, {}, method="minhash")
    assert [(p.training_sha256, p.benchmark_key, p.shared_ngrams) for p in exact.pairs] == \
           [(p.training_sha256, p.benchmark_key, p.shared_ngrams) for p in minhash.pairs] == [("n", "k", 268)]
    assert minhash.pairs[0].found_by == ["minhash"] and minhash.pairs[0].minhash_estimate is not None

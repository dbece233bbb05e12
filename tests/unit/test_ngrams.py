"""Normalised tokens, hashed 13-gram shingles and the exact shared-n-gram index."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from graphforge.audit.ngrams import (
    NGRAM_SIZE,
    ExactIndex,
    TokenHasher,
    ngram_hashes,
    normalise,
    shared_passages,
    shingle_set,
    shingle_text,
    tokenise,
)
from graphforge.audit.overlap import BenchmarkDoc, TrainingDoc, find_overlaps

WORDS = [f"w{i}" for i in range(40)]
docs = st.lists(st.sampled_from(WORDS), min_size=0, max_size=80)


def test_normalise_folds_width_ligatures_and_case() -> None:
    assert normalise("ＡＢＣ Straße ﬁle") == "abc strasse file"


def test_tokenise_drops_punctuation_and_spacing() -> None:
    assert tokenise("Net  revenue: $1,234.50 (Q2)!") == ["net", "revenue", "1", "234", "50", "q2"]


def test_token_ids_are_stable_across_hashers() -> None:
    tokens = tokenise("the same words give the same ids in every process")
    assert np.array_equal(TokenHasher()(tokens), TokenHasher()(tokens))


def test_a_text_shorter_than_one_ngram_has_no_shingles() -> None:
    hasher = TokenHasher()
    assert len(ngram_hashes(hasher(["a"] * (NGRAM_SIZE - 1)))) == 0
    assert len(ngram_hashes(hasher(["a"] * NGRAM_SIZE))) == 1


@settings(deadline=None)
@given(docs)
def test_one_hash_per_window_and_equal_windows_hash_equal(tokens: list[str]) -> None:
    n = 3
    hashes = ngram_hashes(TokenHasher()(tokens), n)
    assert len(hashes) == max(0, len(tokens) - n + 1)
    windows = [tuple(tokens[i:i + n]) for i in range(len(hashes))]
    by_window: dict[tuple[str, ...], int] = {}
    for window, value in zip(windows, hashes.tolist(), strict=True):
        assert by_window.setdefault(window, value) == value
    assert len(set(hashes.tolist())) == len(set(windows))  # no collisions on small inputs


@settings(max_examples=60, deadline=None)
@given(st.lists(docs, min_size=1, max_size=6), docs)
def test_exact_index_counts_match_python_set_intersection(
    references: list[list[str]], query: list[str]
) -> None:
    n = 4
    hasher = TokenHasher()
    index = ExactIndex([shingle_set(hasher(r), n) for r in references])
    counts = index.shared_counts(shingle_set(hasher(query), n))
    q = {tuple(query[i:i + n]) for i in range(len(query) - n + 1)}
    expected = [len(q & {tuple(r[i:i + n]) for i in range(len(r) - n + 1)}) for r in references]
    assert counts.tolist() == expected


def test_shared_passages_recover_the_copied_run() -> None:
    source = " ".join(f"alpha{i}" for i in range(40))
    copy = (
        "unrelated words first " + " ".join(f"alpha{i}" for i in range(10, 30)) + " and then something else"
    )
    hasher = TokenHasher()
    shared = np.intersect1d(shingle_text(copy, hasher).shingles, shingle_text(source, hasher).shingles)
    assert len(shared) == 20 - NGRAM_SIZE + 1
    assert shared_passages(source, shared) == [" ".join(f"alpha{i}" for i in range(10, 30))]


def test_find_overlaps_reports_a_copied_passage_and_a_hash_match() -> None:
    bench_text = " ".join(f"b{i}" for i in range(100))
    bench = [BenchmarkDoc(key="s1", kind="file", label="b/notes.txt", text=bench_text),
             BenchmarkDoc(key="t:1", kind="prompt", label="b/1", text="write a memo on the harbour ledger")]
    training = [
        TrainingDoc("clean", " ".join(f"c{i}" for i in range(200)), ["a.txt"]),
        TrainingDoc("dirty", "intro " + " ".join(f"b{i}" for i in range(30, 60)) + " outro", ["m.txt"]),
        TrainingDoc("s1", bench_text, ["copy.txt"]),
    ]
    found = find_overlaps(training, bench, {"s1": ["b/notes.txt"]}, method="exact")
    assert [h.sha256 for h in found.hash_overlaps] == ["s1"]
    assert [(p.training_sha256, p.shared_ngrams) for p in found.pairs] == [("s1", 88), ("dirty", 18)]
    assert found.pairs[1].passages == [" ".join(f"b{i}" for i in range(30, 60))]
    assert found.training_files == 3 and found.benchmark_prompts == 1 and found.training_too_short == 0

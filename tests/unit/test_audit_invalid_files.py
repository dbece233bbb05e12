"""Broken workspace files are not training data: the audit does not count them, but still matches their
bytes."""

from __future__ import annotations

from graphforge.audit.overlap import BenchmarkDoc, TrainingDoc, find_overlaps


def test_invalid_files_are_not_counted_but_identical_bytes_are_still_found() -> None:
    bench = [BenchmarkDoc(key="bsha", kind="file", label="b/broken.xlsx", text="")]
    training = [
        TrainingDoc("good", " ".join(f"w{i}" for i in range(40)), ["ok.txt"]),
        TrainingDoc("bsha", "", ["same_bytes_as_benchmark.xlsx"], valid=False),
        TrainingDoc("junk", "", ["truncated.pdf"], valid=False),
    ]
    found = find_overlaps(training, bench, {"bsha": ["b/broken.xlsx"]}, method="exact")
    assert found.training_files == 1  # only the valid file is training material
    assert found.training_invalid == 2
    assert [h.sha256 for h in found.hash_overlaps] == ["bsha"]  # a broken copy is still an overlap
    assert found.training_too_short == 0  # broken files are not "too short" texts either

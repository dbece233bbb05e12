"""Graph.write's batching: by row count and by bytes of payload, rows never split or reordered."""

from __future__ import annotations

from graphforge.graphdb.graph import batches, payload_size


def test_batches_close_on_rows_or_bytes() -> None:
    rows = [{"id": str(i), "text": "x" * 100} for i in range(10)]
    assert [len(b) for b in batches(iter(rows), 4, 10_000)] == [4, 4, 2]
    by_bytes = list(batches(iter(rows), 1000, 250))  # each row is about 110 bytes: three fill a batch
    assert [len(b) for b in by_bytes] == [3, 3, 3, 1]
    assert [r for b in by_bytes for r in b] == rows


def test_a_row_larger_than_the_limit_is_a_batch_of_its_own() -> None:
    rows = [{"t": "a"}, {"t": "b" * 5000}, {"t": "c"}]
    assert [[r["t"][0] for r in b] for b in batches(iter(rows), 100, 1000)] == [["a", "b"], ["c"]]


def test_payload_size_counts_nested_span_text() -> None:
    row = {"sha256": "s" * 64, "spans": [{"text": "t" * 300, "ordinal": 1} for _ in range(10)]}
    assert 3000 < payload_size(row) < 3400

"""The Audit node contract export relies on: latest_audit() and the training fingerprint."""

from __future__ import annotations

import pytest

from graphforge.audit import AuditRow, latest_audit, record_audit, training_fingerprint
from graphforge.graphdb.graph import Graph

pytestmark = pytest.mark.neo4j


def test_latest_audit_is_none_before_any_audit(graph: Graph) -> None:
    assert latest_audit(graph, ["gdpval-sample"]) is None


def test_latest_audit_returns_the_newest_run_covering_every_name(graph: Graph) -> None:
    record_audit(graph, AuditRow(audit_id="a1", benchmarks=["b1", "b2"], found_overlaps=True,
                                 training_fingerprint="fp", hash_overlaps=1),
                 now="2025-01-01T00:00:00.000000+00:00")
    record_audit(graph, AuditRow(audit_id="a2", benchmarks=["b1"], found_overlaps=False,
                                 training_fingerprint="fp", training_files=7),
                 now="2025-01-02T00:00:00.000000+00:00")
    newest_b1 = latest_audit(graph, ["b1"])
    assert newest_b1 is not None and newest_b1.audit_id == "a2" and not newest_b1.found_overlaps
    assert newest_b1.counts["training_files"] == 7
    both = latest_audit(graph, ["b2", "b1"])
    assert both is not None and both.audit_id == "a1" and both.found_overlaps
    assert both.counts["hash_overlaps"] == 1
    assert latest_audit(graph, ["b3"]) is None
    # Re-running an audit with the same id re-stamps completed_at but keeps created_at.
    record_audit(graph, AuditRow(audit_id="a1", benchmarks=["b1", "b2"], found_overlaps=True,
                                 training_fingerprint="fp"), now="2025-01-03T00:00:00.000000+00:00")
    again = latest_audit(graph, ["b1"])
    assert again is not None and again.audit_id == "a1"
    assert again.created_at.day == 1 and again.completed_at.day == 3


def test_training_fingerprint_of_an_empty_graph_is_stable(graph: Graph) -> None:
    assert training_fingerprint(graph) == training_fingerprint(graph)
    assert len(training_fingerprint(graph)) == 32

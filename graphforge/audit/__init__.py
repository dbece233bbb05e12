"""Contamination audit of training files against evaluation benchmarks (hash, 13-gram, MinHash, taxonomy).

Public contract for other stages (export): ``latest_audit(graph, benchmark_names)`` returns an
``AuditSummary`` or None, and ``training_fingerprint(graph)`` tells whether that audit is still current.
"""

from graphforge.audit.summary import (
    AuditRow,
    AuditSummary,
    fingerprint_of,
    latest_audit,
    record_audit,
    training_fingerprint,
)

__all__ = [
    "AuditRow",
    "AuditSummary",
    "fingerprint_of",
    "latest_audit",
    "record_audit",
    "training_fingerprint",
]

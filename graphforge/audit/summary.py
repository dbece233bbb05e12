"""The Audit node contract other stages rely on: latest_audit() and the training-set fingerprint."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict, Field

from graphforge.graphdb import cypher
from graphforge.graphdb.graph import Graph
from graphforge.models.base import Row

GET_LATEST_AUDIT = cypher.load("audit/get_latest_audit")
GET_TRAINING_FINGERPRINT = cypher.load("audit/get_training_fingerprint")
MERGE_AUDIT = cypher.load("audit/merge_audit")

# The integer properties an Audit node carries, surfaced together as AuditSummary.counts.
COUNT_FIELDS = ("training_files", "benchmark_files", "benchmark_prompts", "hash_overlaps",
                "ngram_overlap_pairs", "near_duplicates", "minhash_candidates",
                "benchmark_occupations", "covered_occupations")


class AuditSummary(BaseModel):
    """What an export needs to know about the latest contamination audit of some benchmarks.

    ``found_overlaps`` is true when any training file shares a sha256 with a benchmark file, or any
    (training file, benchmark file or prompt) pair shares at least the audit's ``min_shared_ngrams``
    normalised 13-grams. ``counts`` holds the integers named in ``COUNT_FIELDS``.
    """

    model_config = ConfigDict(frozen=True)

    audit_id: str
    benchmarks: list[str]
    found_overlaps: bool
    counts: dict[str, int]
    created_at: datetime  # first time an audit with this id ran
    completed_at: datetime  # last time it ran (latest_audit orders by this)
    training_fingerprint: str  # compare with training_fingerprint(graph) to see if the audit is stale
    report_html: str | None = None
    report_json: str | None = None


class AuditRow(Row):
    """The properties of one (:Audit) node; the audit stage writes it, tests may write one directly."""

    audit_id: str
    benchmarks: list[str]
    found_overlaps: bool
    training_fingerprint: str
    benchmark_fingerprint: str = ""
    training_files: int = Field(0, ge=0)
    benchmark_files: int = Field(0, ge=0)
    benchmark_prompts: int = Field(0, ge=0)
    hash_overlaps: int = Field(0, ge=0)
    ngram_overlap_pairs: int = Field(0, ge=0)
    near_duplicates: int = Field(0, ge=0)
    minhash_candidates: int = Field(0, ge=0)
    benchmark_occupations: int = Field(0, ge=0)
    covered_occupations: int = Field(0, ge=0)
    ngram_size: int = 13
    min_shared_ngrams: int = 1
    minhash_threshold: float = 0.5
    num_perm: int = 128
    training_tokens: int = 0
    benchmark_tokens: int = 0
    report_html: str | None = None
    report_json: str | None = None
    run_id: str = ""


def utc_now() -> str:
    """ISO-8601 UTC timestamp with a fixed width, so string order is time order."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


def record_audit(graph: Graph, row: AuditRow, now: str | None = None) -> str:
    """Write (or re-stamp) one Audit node, link it to its (:Benchmark) nodes; returns its completed_at."""
    stamp = now or utc_now()
    graph.write(MERGE_AUDIT, [row], now=stamp)
    return stamp


def latest_audit(graph: Graph, benchmark_names: Sequence[str]) -> AuditSummary | None:
    """The most recently completed audit covering every named benchmark, or None when none ran."""
    names = sorted(set(benchmark_names))
    if not names:
        raise ValueError("latest_audit needs at least one benchmark name")
    rows = graph.read_dicts(GET_LATEST_AUDIT, benchmarks=names)
    if not rows:
        return None
    row = rows[0]
    return AuditSummary(
        audit_id=row["audit_id"],
        benchmarks=list(row["benchmarks"]),
        found_overlaps=bool(row["found_overlaps"]),
        counts={name: int(row[name] or 0) for name in COUNT_FIELDS},
        created_at=row["created_at"],
        completed_at=row["completed_at"],
        training_fingerprint=row["training_fingerprint"],
        report_html=row["report_html"],
        report_json=row["report_json"],
    )


def fingerprint_of(sha256s: Sequence[str]) -> str:
    """Order-free digest of a set of file hashes (the training side an audit looked at)."""
    digest = hashlib.sha256()
    for sha in sorted(set(sha256s)):
        digest.update(sha.encode("ascii"))
        digest.update(b"\n")
    return digest.hexdigest()[:32]


def training_fingerprint(graph: Graph) -> str:
    """Fingerprint of every file any workspace contains now; differs from an audit's when files changed."""
    sha256s = graph.scalar(GET_TRAINING_FINGERPRINT) or []
    return fingerprint_of(list(sha256s))

"""The contamination gate: training data leaves the graph after a clean audit, or with a recorded override."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import Any, Protocol

from pydantic import BaseModel

from graphforge.errors import ExportError
from graphforge.graphdb.graph import Graph


class Override(StrEnum):
    NONE = "none"
    ALLOW_CONTAMINATED = "allow-contaminated"  # an audit ran for the benchmarks, its overlaps are accepted
    SKIP_AUDIT = "skip-audit"  # no audit is required at all


class AuditLike(Protocol):
    """What the gate reads from ``graphforge.audit.latest_audit`` (AuditSummary)."""

    audit_id: str
    benchmarks: Sequence[str]
    found_overlaps: Any  # a bool or a count; truthy means the audit found overlaps


AuditLookup = Callable[[Graph, list[str]], AuditLike | None]


class AuditDecision(BaseModel):
    """What the export records on its Export node and manifest."""

    benchmarks: list[str]
    audit_id: str | None
    audited_benchmarks: list[str]
    found_overlaps: bool
    override: Override
    note: str


def _audit_module() -> Any:
    try:
        return importlib.import_module("graphforge.audit")
    except ImportError:
        return None


def default_lookup() -> AuditLookup | None:
    """``graphforge.audit.latest_audit`` when the audit module is installed, else None."""
    lookup = getattr(_audit_module(), "latest_audit", None)
    return lookup if callable(lookup) else None


def stale_reason(graph: Graph, summary: AuditLike) -> str | None:
    """Why the audit no longer describes the training files (they changed since it ran), or None."""
    recorded = getattr(summary, "training_fingerprint", None)
    current_of = getattr(_audit_module(), "training_fingerprint", None)
    if not recorded or not callable(current_of):
        return None
    current = current_of(graph)
    if current == recorded:
        return None
    return f"workspace files changed since audit {summary.audit_id} ran (fingerprint {recorded} -> {current})"


def check_audit(
    graph: Graph,
    benchmarks: Sequence[str],
    *,
    allow_contaminated: bool = False,
    skip_audit: bool = False,
    lookup: AuditLookup | None = None,
) -> AuditDecision:
    """Allow the export, or raise ExportError saying what to run or which flag overrides the refusal."""
    names = sorted(set(benchmarks))
    if skip_audit:
        return AuditDecision(
            benchmarks=names,
            audit_id=None,
            audited_benchmarks=[],
            found_overlaps=False,
            override=Override.SKIP_AUDIT,
            note="audit skipped on request (--skip-audit); contamination was not checked",
        )
    if not names:
        raise ExportError(
            "name the benchmarks this data will be evaluated on (--benchmark NAME) so the "
            "export can check their contamination audit, or pass --skip-audit to export unaudited"
        )
    lookup = lookup or default_lookup()
    summary = lookup(graph, names) if lookup is not None else None
    if summary is None:
        raise ExportError(
            f"no contamination audit has run for {', '.join(names)}: run "
            f"`graphforge audit contamination --benchmark NAME` first, or pass --skip-audit"
        )
    audited = sorted(set(summary.benchmarks))
    missing = [n for n in names if n not in audited]
    if missing:
        raise ExportError(
            f"the latest audit {summary.audit_id} does not cover {', '.join(missing)}: audit "
            f"those benchmarks first, or pass --skip-audit"
        )
    stale = stale_reason(graph, summary)
    if stale is not None:
        raise ExportError(
            f"{stale}: re-run `graphforge audit contamination` for {', '.join(names)}, or pass --skip-audit"
        )
    overlaps = bool(summary.found_overlaps)
    if overlaps and not allow_contaminated:
        raise ExportError(
            f"audit {summary.audit_id} found overlaps with {', '.join(names)} "
            f"({summary.found_overlaps}): remove the contaminated data and re-audit, or pass "
            f"--allow-contaminated to export anyway (recorded on the Export node)"
        )
    return AuditDecision(
        benchmarks=names,
        audit_id=summary.audit_id,
        audited_benchmarks=audited,
        found_overlaps=overlaps,
        override=Override.ALLOW_CONTAMINATED if overlaps else Override.NONE,
        note=(
            f"audit {summary.audit_id} found overlaps; exported anyway (--allow-contaminated)"
            if overlaps
            else f"audit {summary.audit_id} found no overlaps"
        ),
    )

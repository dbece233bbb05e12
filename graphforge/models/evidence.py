"""Facts extracted from spans and the cross-file dependencies between them."""

from __future__ import annotations

from enum import StrEnum

from graphforge.models.base import Row


class DependencyKind(StrEnum):
    INTERPRET = "interpret"
    COMPARE = "compare"
    RECONCILE = "reconcile"
    DERIVE = "derive"


class FactRow(Row):
    """(:Fact)-[:FROM_SPAN]->(:Span). ``value`` is the text exactly as it appears in the span."""

    fact_id: str
    span_id: str
    statement: str
    value: str
    value_num: float | None = None  # the number in ``value`` times ``scale`` (in full units)
    unit: str | None = None
    scale: float = 1.0  # 1000 when the table says "in thousands", etc. (optional; added by h4b)
    entity: str | None = None
    metric: str | None = None
    period: str | None = None
    extractor: str  # "rule-based" | "llm:<model>"


class DependsOnRow(Row):
    """(:Fact {fact_id: src})-[:DEPENDS_ON {kind, note}]->(:Fact {fact_id: dst})."""

    src_fact_id: str
    dst_fact_id: str
    kind: DependencyKind
    note: str = ""

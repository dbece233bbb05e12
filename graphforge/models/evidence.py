"""Facts extracted from spans and the cross-file dependencies between them."""

from __future__ import annotations

from enum import StrEnum

from graphforge.models.base import Row


class DependencyKind(StrEnum):
    INTERPRET = "interpret"  # guidance / a dictionary says how to read a table figure or column
    COMPARE = "compare"  # the same figure, date, requirement or record in two files, in agreement
    RECONCILE = "reconcile"  # the same thing stated differently in two files (a restatement that disagrees)
    DERIVE = "derive"  # a computation over facts (a total of its parts, a spreadsheet formula)
    SUPERSEDES = "supersedes"  # a later version of a document (draft -> final, amended, FY -> FY)
    REFERENCE = "reference"  # a document cites another by file name or title


class FactKind(StrEnum):
    """What a fact states; every kind keeps its exact text (``value``) and a normalised form."""

    QUANTITY = "quantity"  # a number with unit, scale, period and entity
    DATE = "date"  # a date or deadline; normalised to ISO 8601
    REQUIREMENT = "requirement"  # who must do what (shall / must / is required to), under a section
    DEFINITION = "definition"  # a term and what it means (glossaries, data dictionaries)
    ATTRIBUTE = "attribute"  # an entity's attribute (organisation -> role, field -> type)
    RECORD = "record"  # a table record keyed by its header
    STATUS = "status"  # a status or decision recorded for an item
    LIST_ITEM = "list_item"  # one item of a list a section requires (a checklist, deliverables)
    METADATA = "metadata"  # a document's title, version, effective date, supersedes


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
    kind: FactKind = FactKind.QUANTITY
    normalized: str | None = None  # ISO date, lower-cased words, the number in full units, ...
    section: str = ""  # where in the file: "§ 3.2 Deliverables", "page 4", "Data!B7"


class DependsOnRow(Row):
    """(:Fact {fact_id: src})-[:DEPENDS_ON {kind, note}]->(:Fact {fact_id: dst})."""

    src_fact_id: str
    dst_fact_id: str
    kind: DependencyKind
    note: str = ""

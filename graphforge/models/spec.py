"""Task specs: statement, deliverables and rubric criteria anchored to facts."""

from __future__ import annotations

import hashlib
import re
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class Polarity(StrEnum):
    POSITIVE = "positive"
    NEGATIVE = "negative"


class CriterionKind(StrEnum):
    VALUE = "value"            # a number/text at a location of a deliverable, recomputable from anchors
    CITATION = "citation"      # the deliverable cites the anchored source file (and locator)
    STRUCTURE = "structure"    # sheets, formulas, sections present
    QUALITATIVE = "qualitative"  # needs a chat-model judge


class DeliverableSpec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    deliverable_id: str  # f"{spec_id}/{name}"
    name: str  # file name the agent must write, e.g. "q3_reconciliation.xlsx"
    format: str  # "xlsx" | "docx" | "md" | "csv"
    description: str = ""
    required_sheets: list[str] = Field(default_factory=list)
    # Cells that must hold a formula, as "Sheet!B5"; optionally with a function that must appear.
    required_formulas: list[str] = Field(default_factory=list)
    required_sections: list[str] = Field(default_factory=list)  # headings in docx / md reports, slide titles,
    # JSON top-level keys
    # The header of the deliverable's table (a CSV, the first required sheet, a table of a report), any order.
    required_columns: list[str] = Field(default_factory=list)
    # The keys of each JSON record (under the first required section's key, when one is named).
    required_keys: list[str] = Field(default_factory=list)


class CriterionSpec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    criterion_id: str  # f"{spec_id}/c{n}"
    polarity: Polarity
    kind: CriterionKind
    weight: float = Field(gt=0)  # w for positive criteria, λ for negative ones
    requirement: str  # what the agent must (or must not) do, in words
    target_deliverable: str  # DeliverableSpec.name
    target_location: str | None = None  # "Summary!B4", "Reconciliation!A2:D9", "section=Variance"
    expected: str | None = None  # expected value as text or a short description of the computation
    expected_value: float | None = None
    tolerance: float = 0.005  # relative tolerance for numeric comparison
    computation: str | None = None  # e.g. "sum", "difference", "ratio", "copy"
    verification: str  # the procedure the judge follows
    anchors: list[str] = Field(default_factory=list)  # Fact ids; every positive criterion has >= 1
    # Task-family criteria are checked by meaning wherever the deliverable puts them
    # (graphforge.judge.items): "item" (a fact must be stated), "cites" (its source file named), "layout" (a
    # section / sheet / slide / column present), "stale" (negative: a superseded or confuser value stated as
    # current). The judge adds standing negatives to every spec (graphforge.judge.standing): "grader"
    # (text addressed to the grader), "sources" (a figure credited to a file that does not hold it, or to
    # a superseded or confuser file), "parts" (a requested part missing or renamed) and "misstated" (a figure
    # or date item given another value). "invented" (negative, set coverage): a row or list entry of the named
    # part states none of the source items anchored to the criterion.
    check: Literal["item", "cites", "layout", "stale", "invented", "grader", "sources", "parts",
                   "misstated"] | None = None
    fact_kind: str | None = None  # FactKind of the anchors ("date", "requirement", "quantity", ...)
    label: str | None = None  # words that name the item (an entity, a term, a deadline's subject)


class TaskSpec(BaseModel):
    """A compiled task. Artifact on disk as JSON; nodes and relationships in the graph."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: Literal[1] = 1
    spec_id: str  # f"{base_id}@v{version}"
    base_id: str
    version: int = Field(ge=1)
    workspace_id: str
    seed_id: str | None = None
    statement: str
    statement_hash: str
    deliverables: list[DeliverableSpec]
    criteria: list[CriterionSpec]
    compiler: str  # "template" | "llm:<model>"
    revised_from: str | None = None
    family: str | None = None  # the task family (graphforge/specs/families/) the spec was compiled as
    family_reason: str = ""  # why this family: the seed's pattern, or the nearest one the evidence supports

    @property
    def positive(self) -> list[CriterionSpec]:
        return [c for c in self.criteria if c.polarity is Polarity.POSITIVE]

    @property
    def negative(self) -> list[CriterionSpec]:
        return [c for c in self.criteria if c.polarity is Polarity.NEGATIVE]


class AgentView(BaseModel):
    """Everything the working agent is allowed to see: the statement and the workspace files."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    spec_id: str
    statement: str
    files: list[str]  # workspace-relative paths
    deliverables: list[str]  # file names to produce (stated in the statement as well)


def normalise_statement(text: str) -> str:
    """Lower-case, collapse whitespace and strip punctuation runs: cosmetic edits keep the hash."""
    return re.sub(r"\s+", " ", re.sub(r"[^\w%.$-]+", " ", text.lower())).strip()


def statement_hash(text: str) -> str:
    return hashlib.sha256(normalise_statement(text).encode("utf-8")).hexdigest()[:16]

"""The extractor interface: workspace spans in, facts (each recoverable from its span) out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from graphforge.figures.numbers import parse_value
from graphforge.models.base import stable_hash
from graphforge.models.evidence import FactRow


class WorkspaceSpan(BaseModel):
    """A span as the extractors see it: the span itself plus the file's path and format in its workspace."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    span_id: str
    file_sha256: str
    locator: str
    kind: str
    ordinal: int
    text: str
    formulas_json: str = ""
    path: str
    format: str | None = None


class RejectedFact(BaseModel):
    """A candidate fact that failed the recoverability check, and why."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    span_id: str
    value: str
    reason: str


class Extraction(BaseModel):
    model_config = ConfigDict(extra="forbid")

    facts: list[FactRow] = Field(default_factory=list)
    rejected: list[RejectedFact] = Field(default_factory=list)
    # Files whose tables held more quantities than the extractor's cap: path -> table rows not read.
    capped: dict[str, int] = Field(default_factory=dict)


class Extractor(Protocol):
    """Reads a workspace's spans and returns the facts it finds; ``name`` is recorded on every fact."""

    name: str

    def extract(self, spans: Sequence[WorkspaceSpan]) -> Extraction: ...


def fact_id(
    span_id: str, value: str, metric: str | None, period: str | None, entity: str | None, extractor: str
) -> str:
    """Content-derived fact key: the same reading of the same span is the same Fact on every run."""
    family = extractor.split(":", 1)[0]  # "llm:model-a" and "llm:model-b" readings of one figure merge
    return "fact-" + stable_hash(span_id, value, metric, period, entity, family)


def recoverability_problem(fact: FactRow, span_text: str) -> str | None:
    """Why a fact cannot be recovered from its span's text, or None when it can.

    The value text must occur verbatim in the span, and a numeric fact's number must be what that text
    says (times the fact's scale), so a model cannot attach a figure the file does not hold.
    """
    if not fact.value.strip():
        return "empty value"
    if fact.value not in span_text:
        return "value text not found in span"
    if fact.value_num is not None:
        parsed = parse_value(fact.value)
        if parsed is None:
            return "value text is not a number"
        expected = parsed * fact.scale
        if abs(expected - fact.value_num) > 1e-9 * max(1.0, abs(expected)):
            return f"value_num {fact.value_num} differs from the text's {expected}"
    return None


def verify(facts: Sequence[FactRow], spans: Sequence[WorkspaceSpan]) -> Extraction:
    """Keep the recoverable facts (deduplicated by fact_id); reject and count the rest."""
    text_of = {s.span_id: s.text for s in spans}
    kept: dict[str, FactRow] = {}
    rejected: list[RejectedFact] = []
    for fact in facts:
        text = text_of.get(fact.span_id)
        problem = "unknown span" if text is None else recoverability_problem(fact, text)
        if problem is None:
            kept.setdefault(fact.fact_id, fact)
        else:
            rejected.append(RejectedFact(span_id=fact.span_id, value=fact.value, reason=problem))
    return Extraction(facts=list(kept.values()), rejected=rejected)

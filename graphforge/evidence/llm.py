"""Fact extraction by the configured chat model with structured (pydantic) output; every fact is verified."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from graphforge.evidence.base import Extraction, WorkspaceSpan, fact_id, verify
from graphforge.figures.numbers import parse_value
from graphforge.models.evidence import FactRow
from graphforge.settings import GraphforgeSettings

SYSTEM = (
    "You extract numeric facts from one excerpt of a business file. For every figure that states a measure "
    "(revenue, costs, profit, headcount, ...) return: value (the figure copied EXACTLY as printed in the "
    "excerpt, e.g. '4,580' or 'EUR 9,115 thousand'), metric (lower-case measure name), entity (segment, "
    "product or region the figure is about; null for the whole company), period (normalised: '2024-Q2', "
    "'2024-H1', '2024-09', '2024' or 'FY2024'), unit (currency code or '%'), scale (1000 when the table says "
    "'in thousands' and the value text itself does not) and a one-sentence statement. Return only figures "
    "present in the excerpt; never compute new ones."
)


class LLMFact(BaseModel):
    model_config = ConfigDict(extra="ignore")

    value: str
    metric: str
    entity: str | None = None
    period: str | None = None
    unit: str | None = None
    scale: float = 1.0
    statement: str = ""


class LLMFacts(BaseModel):
    """The structured answer asked of the chat model for one span."""

    model_config = ConfigDict(extra="ignore")

    facts: list[LLMFact] = Field(default_factory=list)


def configured_chat_model(settings: GraphforgeSettings) -> Any:
    """The chat model from graphforge.llm, or None when no endpoint is configured."""
    from graphforge.llm import chat_model

    return chat_model(settings)


def to_fact_rows(span: WorkspaceSpan, answer: LLMFacts, extractor: str) -> list[FactRow]:
    """Turn a model's answer for one span into FactRows (value_num recomputed from the value text)."""
    rows = []
    for f in answer.facts:
        parsed = parse_value(f.value)
        scale = f.scale if f.scale > 0 else 1.0
        rows.append(FactRow(
            fact_id=fact_id(span.span_id, f.value, f.metric.lower(), f.period, f.entity, extractor),
            span_id=span.span_id, statement=f.statement or f"{f.metric} {f.period or ''} is {f.value}",
            value=f.value, value_num=None if parsed is None else parsed * scale, unit=f.unit, scale=scale,
            entity=f.entity, metric=f.metric.lower(), period=f.period, extractor=extractor))
    return rows


class LLMExtractor:
    """One structured call per span that holds digits; facts not recoverable from their span are rejected."""

    def __init__(self, model: Any, settings: GraphforgeSettings | None = None) -> None:
        self.model = model
        self.name = f"llm:{getattr(model, 'model', 'chat-model')}"
        self.calls = 0
        self.cost_usd = 0.0

    def extract(self, spans: Sequence[WorkspaceSpan]) -> Extraction:
        from graphforge.llm import ask_structured

        facts: list[FactRow] = []
        by_file: dict[str, list[WorkspaceSpan]] = defaultdict(list)
        for span in spans:
            by_file[span.path].append(span)
        for path, file_spans in sorted(by_file.items()):
            for span in sorted(file_spans, key=lambda s: s.ordinal):
                if not any(ch.isdigit() for ch in span.text):
                    continue
                messages = [("system", SYSTEM),
                            ("human", f"File: {path}\nLocation: {span.locator}\nExcerpt:\n{span.text}")]
                answer, records = ask_structured(self.model, LLMFacts, messages)
                self.calls += len(records)
                self.cost_usd += sum(float(getattr(r, "cost_usd", 0.0) or 0.0) for r in records)
                facts.extend(to_fact_rows(span, answer, self.name))
        return verify(facts, spans)

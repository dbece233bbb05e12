"""Seed models: the vocabularies, seed tuples with their evidence, and selection read/write rows."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from graphforge.models.base import Frozen, Row


class ExecutionPattern(Frozen):
    name: str = Field(min_length=1)
    description: str = ""
    keywords: tuple[str, ...] = ()
    default_inputs: tuple[str, ...] = ()


class InputFamily(Frozen):
    name: str = Field(min_length=1)
    description: str = ""
    formats: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()


class Vocabulary(Frozen):
    """The versioned execution-pattern and input-family vocabularies (graphforge/vocab/*.yaml)."""

    version: str
    source: str = ""
    execution_patterns: tuple[ExecutionPattern, ...]
    input_families: tuple[InputFamily, ...]

    @model_validator(mode="after")
    def _consistent(self) -> Vocabulary:
        patterns = [p.name for p in self.execution_patterns]
        families = [f.name for f in self.input_families]
        for kind, names in (("execution pattern", patterns), ("input family", families)):
            duplicates = sorted({n for n in names if names.count(n) > 1})
            if duplicates:
                raise ValueError(f"duplicate {kind} names: {', '.join(duplicates)}")
        for pattern in self.execution_patterns:
            unknown = [f for f in pattern.default_inputs if f not in families]
            if unknown:
                raise ValueError(
                    f"pattern {pattern.name!r} names unknown input families: {', '.join(unknown)}"
                )
        return self


class PatternRow(Row):
    name: str
    description: str
    keywords: list[str]
    default_inputs: list[str]
    vocab_version: str
    ordinal: int


class InputFamilyRow(Row):
    name: str
    description: str
    formats: list[str]
    keywords: list[str]
    vocab_version: str
    ordinal: int


class TaskContext(Frozen):
    """A DIGITAL task with its occupation and task types, read from the graph for seed building."""

    task_id: str
    statement: str
    soc_code: str
    occupation_title: str
    sector_code: str | None = None
    dwas: list[dict[str, str]] = Field(default_factory=list)  # [{dwa_id, title, iwa_title}]


class EvidenceRow(Row):
    evidence_id: str
    kind: Literal["task_statement", "passage"]
    text: str
    source: str  # e.g. "O*NET 29.1 Task Statements, Task ID 90012"
    task_id: str


class SeedRow(Row):
    """A candidate seed tuple; every one cites the evidence its work demand rests on."""

    seed_id: str
    task_id: str
    soc_code: str
    dwa_id: str
    pattern: str
    input_family: str
    demand: str
    demand_normalized: str
    demand_source: Literal["rule-based", "llm"]
    demand_model: str  # "" for rule-based
    evidence_id: str
    evidence_quote: str


class SeedCandidate(Frozen):
    """A seed as the selector sees it: its values on each coverage dimension."""

    seed_id: str
    task_id: str
    soc_code: str
    dwa_id: str
    pattern: str
    input_family: str
    sector_code: str
    demand_normalized: str
    selection_rank: int | None = None


class SelectedValueCount(Frozen):
    dimension: Literal["occupation", "task_type", "pattern", "input_family"]
    value: str
    seeds: int


class SelectionRow(Row):
    seed_id: str
    selection_rank: int
    greedy_rank: int
    selection_gain: float
    selection_run: str

"""Load the execution-pattern and input-family vocabularies as ExecutionPattern / InputFamily nodes."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict

from graphforge import cypher
from graphforge.context import StageContext
from graphforge.models.seeds import InputFamilyRow, PatternRow, Vocabulary
from graphforge.vocab import load_vocabulary

MERGE_EXECUTION_PATTERNS = cypher.load("seeds/merge_execution_patterns")
MERGE_INPUT_FAMILIES = cypher.load("seeds/merge_input_families")


class LoadVocabParams(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    path: Path | None = None  # None: the bundled graphforge/vocab/execution_patterns.yaml


class LoadVocabResult(BaseModel):
    version: str
    source: str
    execution_patterns: int
    input_families: int


def vocab_rows(vocab: Vocabulary) -> tuple[list[PatternRow], list[InputFamilyRow]]:
    patterns = [PatternRow(name=p.name, description=p.description, keywords=list(p.keywords),
                           default_inputs=list(p.default_inputs), vocab_version=vocab.version, ordinal=i)
                for i, p in enumerate(vocab.execution_patterns)]
    families = [InputFamilyRow(name=f.name, description=f.description, formats=list(f.formats),
                               keywords=list(f.keywords), vocab_version=vocab.version, ordinal=i)
                for i, f in enumerate(vocab.input_families)]
    return patterns, families


def write_vocabulary(ctx: StageContext, vocab: Vocabulary) -> LoadVocabResult:
    """MERGE one node per pattern and per input family of an already validated vocabulary."""
    patterns, families = vocab_rows(vocab)
    ctx.graph.write(MERGE_EXECUTION_PATTERNS, patterns)
    ctx.graph.write(MERGE_INPUT_FAMILIES, families)
    return LoadVocabResult(version=vocab.version, source=vocab.source, execution_patterns=len(patterns),
                           input_families=len(families))


def run(ctx: StageContext, params: LoadVocabParams) -> LoadVocabResult:
    """Validate the YAML, then MERGE one node per pattern and per input family."""
    return write_vocabulary(ctx, load_vocabulary(params.path))

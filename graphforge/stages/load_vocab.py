"""Load the execution-pattern and input-family vocabularies as ExecutionPattern / InputFamily nodes."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from graphforge.context import StageContext
from graphforge.vocab import load_vocabulary, write_vocabulary


class LoadVocabParams(BaseModel):
    """Options of the load_vocab stage."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    path: Path | None = Field(None, description="None: the bundled graphforge/vocab/execution_patterns.yaml.")


class LoadVocabResult(BaseModel):
    """What the load_vocab stage did."""

    version: str
    source: str
    execution_patterns: int
    input_families: int


def run(ctx: StageContext, params: LoadVocabParams) -> LoadVocabResult:
    """Validate the YAML, then MERGE one node per pattern and per input family."""
    vocab = load_vocabulary(params.path)
    patterns, families = write_vocabulary(ctx.graph, vocab)
    return LoadVocabResult(version=vocab.version, source=vocab.source, execution_patterns=patterns,
                           input_families=families)

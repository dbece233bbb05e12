"""The seed vocabularies (execution patterns, input-file families): a versioned YAML users can replace."""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import ValidationError

from graphforge.errors import SourceFormatError
from graphforge.graphdb import cypher
from graphforge.graphdb.graph import Graph
from graphforge.models.seeds import InputFamilyRow, PatternRow, Vocabulary

DEFAULT_VOCAB = Path(__file__).resolve().parent / "execution_patterns.yaml"
MERGE_EXECUTION_PATTERNS = cypher.load("seeds/merge_execution_patterns")
MERGE_INPUT_FAMILIES = cypher.load("seeds/merge_input_families")


def load_vocabulary(path: Path | None = None) -> Vocabulary:
    """Read and validate a vocabulary YAML (the bundled one when ``path`` is None)."""
    source = Path(path) if path is not None else DEFAULT_VOCAB
    try:
        data = yaml.safe_load(source.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SourceFormatError(source, f"cannot read: {exc.strerror}") from exc
    except yaml.YAMLError as exc:
        raise SourceFormatError(source, f"not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise SourceFormatError(source, "expected a mapping with version, execution_patterns, input_families")
    try:
        return Vocabulary.model_validate({**data, "version": str(data.get("version", "")),
                                          "source": str(source)})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "file"
        raise SourceFormatError(source, f"{where}: {first['msg']}") from exc


def vocab_rows(vocab: Vocabulary) -> tuple[list[PatternRow], list[InputFamilyRow]]:
    patterns = [PatternRow(name=p.name, description=p.description, keywords=list(p.keywords),
                           default_inputs=list(p.default_inputs), vocab_version=vocab.version, ordinal=i)
                for i, p in enumerate(vocab.execution_patterns)]
    families = [InputFamilyRow(name=f.name, description=f.description, formats=list(f.formats),
                               keywords=list(f.keywords), vocab_version=vocab.version, ordinal=i)
                for i, f in enumerate(vocab.input_families)]
    return patterns, families


def write_vocabulary(graph: Graph, vocab: Vocabulary) -> tuple[int, int]:
    """MERGE one node per pattern and per input family of a validated vocabulary; (patterns, families).

    Shared by the load_vocab and build_seeds stages (a stage never calls another).
    """
    patterns, families = vocab_rows(vocab)
    graph.write(MERGE_EXECUTION_PATTERNS, patterns)
    graph.write(MERGE_INPUT_FAMILIES, families)
    return len(patterns), len(families)

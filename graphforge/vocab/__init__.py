"""The seed vocabularies (execution patterns, input-file families): a versioned YAML users can replace."""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import ValidationError

from graphforge.errors import SourceFormatError
from graphforge.models.seeds import Vocabulary

DEFAULT_VOCAB = Path(__file__).resolve().parent / "execution_patterns.yaml"


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

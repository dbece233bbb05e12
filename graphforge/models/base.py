"""Shared model configuration and small helpers."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel, ConfigDict


class Frozen(BaseModel):
    """Immutable, strict model for values that cross a boundary."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class Row(BaseModel):
    """A write payload: its fields are the Cypher ``row.*`` keys and the node properties."""

    model_config = ConfigDict(frozen=True, extra="forbid")


def stable_hash(*parts: Any, length: int = 16) -> str:
    """Hex digest of the JSON form of ``parts``; the basis of every content-derived key."""
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:length]

"""Split a long stage across processes: shard ``i/n`` keeps the natural keys whose stable hash mod n is i.

The hash is sha256 of the key's UTF-8 bytes (the first 8 bytes, big-endian), so every process on every
machine, Python version and ``PYTHONHASHSEED`` puts a key in the same shard. Indexes count from 0, as
Slurm's ``SLURM_ARRAY_TASK_ID`` (``--array=0-3``) and Kubernetes' ``JOB_COMPLETION_INDEX`` do, so a job
array passes its index straight through: ``--shard $SLURM_ARRAY_TASK_ID/4``. Every stage that takes a
shard writes with MERGE on natural keys, so shards may run at the same time against one graph, and a
shard that is re-run (after a crash, on another node) adds nothing twice.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from graphforge.errors import ConfigError

_SHARD_RE = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


def shard_of(key: str, count: int) -> int:
    """The shard (0 .. count - 1) that owns ``key``."""
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % count


class Shard(BaseModel):
    """One part of n: ``Shard(index=1, count=4)``, or ``"1/4"`` wherever a Params model takes a shard."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    index: int = Field(ge=0)
    count: int = Field(ge=1)

    @model_validator(mode="before")
    @classmethod
    def _from_text(cls, value: Any) -> Any:
        if isinstance(value, str):
            match = _SHARD_RE.match(value)
            if not match:
                raise ValueError(f"shard {value!r} is not of the form i/n (e.g. 0/4)")
            return {"index": int(match[1]), "count": int(match[2])}
        return value

    @model_validator(mode="after")
    def _index_below_count(self) -> Shard:
        if self.index >= self.count:
            raise ValueError(f"shard index {self.index} must be below the shard count {self.count} "
                             f"(indexes count from 0: 0/{self.count} .. {self.count - 1}/{self.count})")
        return self

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def owns(self, key: str) -> bool:
        return shard_of(key, self.count) == self.index

    def select(self, keys: Iterable[str]) -> list[str]:
        """The keys this shard owns, in their given order."""
        return [k for k in keys if self.owns(k)]


def parse_shard(text: str | None) -> Shard | None:
    """``"i/n"`` as a Shard (None stays None); a malformed value is a ConfigError naming it."""
    if text is None:
        return None
    try:
        return Shard.model_validate(text)
    except ValueError as exc:
        errors = getattr(exc, "errors", None)
        reason = errors()[0]["msg"].removeprefix("Value error, ") if callable(errors) else str(exc)
        raise ConfigError(f"--shard {text!r}: {reason}") from exc


def owns(shard: Shard | None, key: str) -> bool:
    """True when there is no shard (one process does everything) or the shard owns the key."""
    return shard is None or shard.owns(key)

"""Tell a log's format from its content (``--format auto``); a reason when it is none graphforge reads.

The formats are asked in their registry's rank order (see :mod:`loaders.trajectories.formats`): first
whether one claims the file by its name, then the whole JSON document, then its JSON Lines records.
"""

from __future__ import annotations

from typing import Any

from graphforge.errors import SourceFormatError
from loaders.trajectories.base import Issues, SourceFile, TrajectoryFormatSpec
from loaders.trajectories.formats import TRAJECTORY_FORMATS

_LINES_LOOKED_AT = 50


def sniff(src: SourceFile) -> TrajectoryFormatSpec | str:
    """The format of ``src``, or why it is not a trajectory log (SourceFormatError if unreadable)."""
    formats = TRAJECTORY_FORMATS.entries()
    for f in formats:
        if f.path is not None and f.path(src.path):
            return f
    body = src.text.lstrip()
    if not body:
        return "empty file"
    if body[0] not in "{[":
        return f"not JSON or JSON Lines (starts with {body[:20]!r})"
    if src.is_document():
        return _document(src.document(), formats)
    issues = Issues(src.path)
    records = []
    try:
        for _, record in src.lines(issues):
            records.append(record)
            if len(records) >= _LINES_LOOKED_AT:
                break
    except SourceFormatError as exc:
        return exc.problem
    if not records:
        try:
            src.document()
        except SourceFormatError as exc:
            return exc.problem
    for record in records:
        found = _record(record, formats)
        if found is not None:
            return found
    keys = {k: None for r in records for k in r}
    return f"JSON Lines whose records (keys {_keys(keys)}) match no trajectory format graphforge reads"


def _document(data: Any, formats: list[TrajectoryFormatSpec]) -> TrajectoryFormatSpec | str:
    for f in formats:
        if f.document is not None and f.document(data):
            return f
    if isinstance(data, list):
        items = [d for d in data if isinstance(d, dict)]
        if not items:
            return "a JSON array without objects" if data else "an empty JSON array"
        return (f"a JSON array of objects (keys {_keys(items[0])}) that is no trajectory format "
                "graphforge reads")
    if isinstance(data, dict):
        found = _record(data, formats)  # JSON Lines of one line
        if found is not None:
            return found
        return f"a JSON object (keys {_keys(data)}) that is no trajectory format graphforge reads"
    return f"a JSON {type(data).__name__}, not a trajectory"


def _record(record: dict[str, Any], formats: list[TrajectoryFormatSpec]) -> TrajectoryFormatSpec | None:
    return next((f for f in formats if f.record is not None and f.record(record)), None)


def _keys(data: dict[str, Any]) -> str:
    return ", ".join(repr(str(k)[:30]) for k in sorted(data)[:8])

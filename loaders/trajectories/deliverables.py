"""Attach files on disk to imported trajectories as deliverables (name, absolute path, sha256, size)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

from graphforge.models.trajectory import DeliverableFile
from loaders.trajectories.base import Issues


def deliverable(path: Path) -> DeliverableFile:
    data = path.read_bytes()
    return DeliverableFile(
        name=path.name, path=str(path.resolve()), sha256=hashlib.sha256(data).hexdigest(), size=len(data)
    )


def files_as_deliverables(
    base: Path, names: Iterable[object], issues: Issues, line: int | None = None
) -> list[DeliverableFile]:
    """Deliverables named in a record, resolved against ``base``; missing ones are reported."""
    found = []
    for name in names:
        target = base / str(name)
        if target.is_file():
            found.append(deliverable(target))
        else:
            issues.add(f"deliverable {name!r} not found next to the log", line)
    return found


def folder_deliverables(folder: Path) -> list[DeliverableFile]:
    """Every top-level file of a folder (``--deliverables DIR``)."""
    return [deliverable(p) for p in sorted(folder.iterdir()) if p.is_file()]

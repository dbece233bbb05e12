"""Attach files on disk to imported trajectories as deliverables (name, absolute path, sha256, size)."""

from __future__ import annotations

import hashlib
import stat
from collections.abc import Iterable
from pathlib import Path

from graphforge.models.trajectory import DeliverableFile
from loaders.trajectories.base import Issues, shown


def deliverable(path: Path) -> DeliverableFile:
    data = path.read_bytes()
    return DeliverableFile(name=shown(path.name), path=shown(path.resolve()),
                           sha256=hashlib.sha256(data).hexdigest(), size=len(data))


def _resolve(path: Path) -> Path | None:
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a link loop, a name too long
        return None


def _regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return False


def files_as_deliverables(
    base: Path, names: Iterable[object], issues: Issues, line: int | None = None
) -> list[DeliverableFile]:
    """Deliverables named in a record, resolved against ``base`` and confined to it: an absolute
    path, a ``..`` escape or a link leading out of the log's folder is refused, never read."""
    found = []
    root = base.resolve()
    for name in names:
        text = str(name)
        target = _resolve(base / text) if text and "\x00" not in text else None
        if target is None or not target.is_relative_to(root):
            issues.add(f"deliverable {text[:200]!r} is outside the log's folder; not read", line)
        elif not _regular(target):
            issues.add(f"deliverable {text[:200]!r} not found next to the log", line)
        else:
            try:
                found.append(deliverable(target))
            except OSError as exc:
                issues.add(f"deliverable {text[:200]!r} cannot be read: {exc.strerror or exc}", line)
    return found


def folder_deliverables(folder: Path) -> list[DeliverableFile]:
    """Every top-level regular file of a folder (``--deliverables DIR``)."""
    return [deliverable(p) for p in sorted(folder.iterdir()) if _regular(p) and not p.is_symlink()]

"""Read agent trajectories from other scaffolds into graphforge's Trajectory model (a pure reader).

result = read_trajectories(Path("runs/"), "auto")                # or a format name: "codex", ...
result.trajectories                         # valid OpenAI message lists with tool calls
[o.line() for o in result.files]            # one line per file: imported N, or skipped with the reason

Formats: those of :data:`TRAJECTORY_FORMATS` (SWE-agent ``.traj``; OpenAI messages; tau-bench and
tau2-bench results; OpenHands event streams, ``events/`` folders and evaluation ``output.jsonl``; Codex
CLI sessions; Claude Code transcripts; and any a distribution registers). The graph write is the
import_trajectories stage.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from graphforge.errors import SourceFormatError
from graphforge.models.trajectory import Trajectory
from loaders.trajectories.base import ImportIssue, ParsedFile, SourceFile, TrajectoryFormatSpec, shown
from loaders.trajectories.deliverables import folder_deliverables
from loaders.trajectories.formats import (
    AUTO,
    TRAJECTORY_FORMATS,
    check_format,
    format_choices,
    format_names,
)
from loaders.trajectories.sniff import sniff

__all__ = ["AUTO", "TRAJECTORY_FORMATS", "FileOutcome", "ImportIssue", "ReadResult", "TrajectoryFormatSpec",
           "check_format", "format_choices", "format_names", "read_trajectories", "suffixes"]


def suffixes(fmt: str) -> frozenset[str]:
    """The file names a format (or ``auto``: any format) is looked for under in a folder."""
    if fmt == AUTO:
        return frozenset(s for f in TRAJECTORY_FORMATS for s in f.suffixes)
    return TRAJECTORY_FORMATS.get(fmt).suffixes


def _folder_formats(fmt: str) -> list[TrajectoryFormatSpec]:
    """The formats that may claim a whole folder as one log, when reading as ``fmt``."""
    return [f for f in TRAJECTORY_FORMATS if f.folder is not None and f.parse_folder is not None
            and fmt in (AUTO, f.name)]


def _claims_folder(path: Path, fmt: str) -> TrajectoryFormatSpec | None:
    return next((f for f in _folder_formats(fmt) if f.folder is not None and f.folder(path)), None)
_SHOWN_GROUPS = 3


class FileOutcome(BaseModel):
    """What became of one file (or one OpenHands events folder): reported once."""

    model_config = ConfigDict(extra="forbid")

    file: str
    format: str = ""  # what it was read as; "" when it was not read
    imported: int = 0
    skipped: str | None = None  # why nothing was imported
    warnings: int = 0
    summary: list[str] = Field(default_factory=list)  # warnings grouped by kind, most frequent first

    def line(self) -> str:
        if self.skipped is not None:
            return f"skipped {self.file}: {self.skipped}"
        noun = "trajectory" if self.imported == 1 else "trajectories"
        text = f"imported {self.imported} {noun} from {self.file} ({self.format})"
        if self.warnings:
            plural = "s" if self.warnings != 1 else ""
            text += f"; {self.warnings} warning{plural}: " + " | ".join(self.summary)
        return text


class ReadResult(BaseModel):
    files: list[FileOutcome]
    ignored: dict[str, int] = Field(default_factory=dict)  # suffix -> files in the folder not read
    trajectories: list[Trajectory]
    issues: list[ImportIssue]


def _summary(issues: list[ImportIssue]) -> list[str]:
    """Warnings grouped by kind (numbers and ids folded): 'problem (x3, lines 4, 9, 12)'."""
    groups: dict[str, list[ImportIssue]] = {}
    for issue in issues:
        key = re.sub(r"\d+", "N", issue.problem)
        groups.setdefault(key, []).append(issue)
    ordered = sorted(groups.values(), key=len, reverse=True)
    out = []
    for group in ordered[:_SHOWN_GROUPS]:
        lines = [str(i.line) for i in group if i.line is not None]
        more = ", ..." if len(lines) > 3 else ""
        places = ([f"line{'s' if len(lines) > 1 else ''} {', '.join(lines[:3])}{more}"] if lines
                  else [group[0].record] if group[0].record else [])
        if len(group) > 1:
            places.insert(0, f"x{len(group)}")
        out.append(group[0].problem + (f" ({', '.join(places)})" if places else ""))
    rest = sum(len(g) for g in ordered[_SHOWN_GROUPS:])
    if rest:
        kinds = len(ordered) - _SHOWN_GROUPS
        out.append(f"{rest} more of {kinds} other kind{'s' if kinds > 1 else ''}")
    return out


def _units(root: Path, fmt: str) -> tuple[list[Path], Counter[str], list[FileOutcome]]:
    """Files (and folders a format reads as one log: OpenHands events/) to read under ``root``; others
    counted by suffix; folders that cannot be listed and links leading out of ``root`` are refused with
    their reason."""
    units: list[Path] = []
    ignored: Counter[str] = Counter()
    refused: list[FileOutcome] = []
    wanted = suffixes(fmt)
    top = root.resolve()

    def unreadable(error: OSError) -> None:
        refused.append(FileOutcome(file=shown(error.filename or root),
                                   skipped=f"folder cannot be listed: {error.strerror or error}"))

    for folder, dirs, names in os.walk(root, onerror=unreadable):
        here = Path(folder)
        dirs.sort()
        if names and not dirs and _claims_folder(here, fmt) is not None:
            units.append(here)
            continue
        links = sum(_is_link(here / d) for d in dirs)
        if links:
            ignored["(linked folder, not followed)"] += links
        for name in sorted(names):
            path = here / name
            suffix = path.suffix.lower()
            if suffix not in wanted:
                ignored[suffix or "(no suffix)"] += 1
                continue
            try:
                link = path.is_symlink()
            except OSError as exc:  # a name too long for the system, say
                reason = f"cannot be read: {exc.strerror or exc}"
                refused.append(FileOutcome(file=shown(path), skipped=reason))
                continue
            if link:
                try:
                    inside = path.resolve(strict=True).is_relative_to(top)
                except (OSError, RuntimeError) as exc:
                    refused.append(FileOutcome(file=shown(path), skipped=f"broken or looping link ({exc})"))
                    continue
                if not inside:
                    refused.append(FileOutcome(file=shown(path),
                                               skipped="link leads outside the folder; not read"))
                    continue
            units.append(path)
    return units, ignored, refused


def _is_link(path: Path) -> bool:
    try:
        return path.is_symlink()
    except OSError:
        return False


def _read_unit(path: Path, fmt: str, spec_id: str | None) -> tuple[str, ParsedFile | str]:
    """(format read as, parsed file) or ("", why it was skipped): any failure is a reason, never a crash."""
    try:
        if path.is_dir():
            folder = _claims_folder(path, fmt)
            if folder is None or folder.parse_folder is None:
                return "", "a folder no trajectory format reads as one log"
            return folder.name, folder.parse_folder(path, spec_id)
        src = SourceFile(path)
        detected = sniff(src)
        if fmt == AUTO:
            if isinstance(detected, str):
                return "", detected
            use = detected
        else:
            if not isinstance(detected, str) and detected.name != fmt:
                return "", (f"looks like {detected.name}, not {fmt} "
                            f"(use --format {detected.name} or --format auto)")
            use = TRAJECTORY_FORMATS.get(fmt)
        return use.name, use.parse(src, spec_id)
    except SourceFormatError as exc:
        return "", exc.problem
    except (RecursionError, MemoryError) as exc:
        return "", f"too deeply nested or too large to read ({type(exc).__name__})"
    except Exception as exc:  # a record shaped unlike anything the format documents
        return "", f"could not be read ({type(exc).__name__}: {str(exc)[:200]})"


def read_trajectories(
    path: Path,
    fmt: str = AUTO,
    spec_id: str | None = None,
    deliverables_dir: Path | None = None,
    sink: Callable[[list[Trajectory]], None] | None = None,
) -> ReadResult:
    """Parse a file, or every candidate file under a folder; each file's outcome is reported once.

    ``fmt`` is ``auto`` (each file's format told from its content) or a name in
    :data:`TRAJECTORY_FORMATS`. Nothing here raises for a bad file: it is skipped with its reason. Only
    a ``path`` that does not exist is a SourceFormatError, and an unknown ``fmt`` a ConfigError. With
    ``sink``, each file's trajectories go to it as soon as the file is read and are not kept in the
    result (memory holds one file's logs, not the folder's).
    """
    path = Path(path)
    check_format(fmt)
    if deliverables_dir is not None and not deliverables_dir.is_dir():
        raise SourceFormatError(shown(deliverables_dir), "--deliverables: no such folder")
    if path.is_dir() and _claims_folder(path, fmt) is None:
        units, ignored, outcomes = _units(path, fmt)
    elif path.exists() or path.is_symlink():
        units, ignored, outcomes = [path], Counter(), []
    else:
        raise SourceFormatError(shown(path), "no such file or folder")
    extra = folder_deliverables(deliverables_dir) if deliverables_dir is not None else []
    trajectories: list[Trajectory] = []
    issues: list[ImportIssue] = []
    seen: dict[str, str] = {}
    for unit in units:
        used, parsed = _read_unit(unit, fmt, spec_id)
        if isinstance(parsed, str):
            outcomes.append(FileOutcome(file=shown(unit), skipped=parsed))
            continue
        file_issues = list(parsed.issues)
        kept = 0
        for t in parsed.trajectories:
            if t.trajectory_id in seen:
                problem = f"duplicate trajectory id {t.trajectory_id} (also in {seen[t.trajectory_id]})"
                file_issues.append(ImportIssue(file=shown(unit), problem=problem))
                continue
            seen[t.trajectory_id] = shown(unit)
            if extra:
                t = t.model_copy(update={"deliverables": [*t.deliverables, *extra]})
            trajectories.append(t)
            kept += 1
        if sink is not None and trajectories:
            sink(trajectories)
            trajectories = []
        issues.extend(file_issues)
        outcome = FileOutcome(file=shown(unit), format=used, imported=kept, warnings=len(file_issues),
                              summary=_summary(file_issues))
        if not kept:
            first = _summary(file_issues)[:1]
            outcome.skipped = f"nothing imported ({first[0] if first else 'no conversation'})"
        outcomes.append(outcome)
    return ReadResult(files=outcomes, ignored=dict(sorted(ignored.items())), trajectories=trajectories,
                      issues=issues)

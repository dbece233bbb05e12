"""Workspace folders → candidate files with hidden roles: walk, manifest (JSON/YAML), role assignment.

A pure reader: nothing here touches Neo4j; the ``load_workspace`` stage ingests what ``scan_workspace``
returns.

Manifest (optional; ``manifest.json|yaml|yml`` or ``graphforge-manifest.*`` at the root, or ``--manifest``):

    {"workspace": {"id": "ws-brightwater", "name": "...", "seed_id": "..."},
     "files": [{"path": "reports/q2.pdf", "role": "core", "source_url": "https://...", "license": "MIT"}]}
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from collections.abc import Callable, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from graphforge.errors import SourceFormatError
from graphforge.models.base import stable_hash
from graphforge.models.workspace import CandidateFile, FileRole
from graphforge.parsers import ParseLimits

MANIFEST_NAMES = (
    "manifest.json",
    "manifest.yaml",
    "manifest.yml",
    "graphforge-manifest.json",
    "graphforge-manifest.yaml",
    "graphforge-manifest.yml",
)
# Crawl and OS debris, never workspace content.
SKIP_DIRS = {".git", ".svn", ".hg", "__MACOSX", "__pycache__", ".ipynb_checkpoints"}
SKIP_FILES = {".DS_Store", "Thumbs.db", "desktop.ini"}


class ManifestFile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    path: str
    role: FileRole | None = None
    source_url: str | None = None
    license: str | None = None


class ManifestWorkspace(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    id: str | None = None
    name: str | None = None
    seed_id: str | None = None


class Manifest(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    workspace: ManifestWorkspace = ManifestWorkspace()
    files: list[ManifestFile] = Field(default_factory=list)


class WorkspaceScan(BaseModel):
    """What a walk found: candidates with roles, and paths refused before any byte was read."""

    root: Path
    workspace_id: str
    name: str
    seed_id: str | None
    manifest: Path | None
    candidates: list[CandidateFile]
    refused: list[tuple[str, str]]  # (relative path, reason)
    skipped: list[str]  # OS / VCS debris


# ---- roles --------------------------------------------------------------------------------------

# Rules look only at the path: they run before parsing and must never depend on content an agent sees.
# A version number in a name says which version a file is, not that it is the wrong one (the current
# release is numbered too): the superseded versions are found from the files' own dates and version
# markers (supersedes links). A README is often the document itself in a crawled repository (a data
# dictionary, a programme page) and a newsletter a programme's record: neither is background by its name.
_ROLE_RULES: list[tuple[FileRole, re.Pattern[str]]] = [
    (
        FileRole.CONFUSER,
        re.compile(
            r"draft|superseded|obsolete|deprecated|outdated|old[_\- ]|backup|\bbak\b|prelim",
            re.IGNORECASE,
        ),
    ),
    (
        FileRole.AMBIENT,
        re.compile(
            r"(^|/)(misc|tmp|temp|archive|other|personal)/|notice|"
            r"invitation|menu|agenda|holiday|party|relocation",
            re.IGNORECASE,
        ),
    ),
    (
        FileRole.CORE,
        re.compile(
            r"report|ledger|statement|financ|accounts|results|budget|forecast|balance|"
            r"invoice|contract|dataset|data/",
            re.IGNORECASE,
        ),
    ),
]


def rule_role(path: str) -> FileRole:
    """Role from the path alone: drafts are confusers, notices ambient, reports and ledgers core."""
    for role, pattern in _ROLE_RULES:
        if pattern.search(path):
            return role
    return FileRole.SUPPORTING


RoleAssigner = Callable[[Sequence[str]], dict[str, tuple[FileRole, str]]]


def rule_assigner(paths: Sequence[str]) -> dict[str, tuple[FileRole, str]]:
    return {p: (rule_role(p), "rules") for p in paths}


# ---- manifest -----------------------------------------------------------------------------------


MAX_MANIFEST_BYTES = 8 * 1024 * 1024
MAX_MANIFEST_DEPTH = 32  # a manifest is two levels deep; anything far deeper is hostile
_SHOWN_PATH_CHARS = 300  # a refused path longer than this is shown cut, with its length


def read_manifest(path: Path) -> Manifest:
    """Parse a JSON or YAML manifest (by content: JSON first, then YAML).

    Refused with a SourceFormatError naming the problem: a link, pipe or device instead of a file, more
    than MAX_MANIFEST_BYTES, nesting deeper than MAX_MANIFEST_DEPTH, YAML aliases, or a schema mismatch.
    """
    try:
        st = os.lstat(path)
    except OSError as exc:
        raise SourceFormatError(path, f"cannot read manifest: {exc.strerror or exc}") from exc
    if stat.S_ISLNK(st.st_mode):
        raise SourceFormatError(path, "manifest is a symlink (refused; symlinks are never followed)")
    if not stat.S_ISREG(st.st_mode):
        raise SourceFormatError(path, "manifest is not a regular file")
    if st.st_size > MAX_MANIFEST_BYTES:
        raise SourceFormatError(
            path, f"manifest is {st.st_size} bytes, over the {MAX_MANIFEST_BYTES}-byte limit"
        )
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as fh:
            raw = fh.read(MAX_MANIFEST_BYTES + 1)
        text = raw.decode("utf-8")
    except OSError as exc:
        raise SourceFormatError(path, f"cannot read manifest: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise SourceFormatError(path, f"manifest is not UTF-8 text (byte {exc.start})") from exc
    data = _parse_manifest_text(path, text)
    if isinstance(data, list):  # a bare list of file entries is accepted too
        data = {"files": data}
    try:
        return Manifest.model_validate(data or {})
    except ValidationError as exc:
        raise SourceFormatError(
            path,
            f"manifest does not match the schema: {exc.errors()[0]['msg']} at "
            f"{'.'.join(str(x) for x in exc.errors()[0]['loc'])[:200]}",
        ) from exc
    except RecursionError as exc:
        raise SourceFormatError(path, "manifest nests too deeply") from exc


def _parse_manifest_text(path: Path, text: str) -> Any:
    if _json_depth(text) > MAX_MANIFEST_DEPTH:
        raise SourceFormatError(path, f"manifest nests deeper than {MAX_MANIFEST_DEPTH} levels")
    try:
        return json.loads(text)
    except ValueError:
        pass
    except RecursionError as exc:
        raise SourceFormatError(path, "manifest nests too deeply") from exc
    import yaml

    try:
        # Events first: the event parser is iterative, so depth and aliases are checked before the
        # (recursive) composer ever sees the document; aliases could multiply a small file's size.
        depth = 0
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.AliasEvent):
                raise SourceFormatError(path, "manifest uses YAML aliases, which are not accepted")
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                if depth > MAX_MANIFEST_DEPTH:
                    raise SourceFormatError(path, f"manifest nests deeper than {MAX_MANIFEST_DEPTH} levels")
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise SourceFormatError(path, f"manifest is neither JSON nor YAML: {_one_line(str(exc))}") from exc
    except RecursionError as exc:
        raise SourceFormatError(path, "manifest nests too deeply") from exc


def _json_depth(text: str) -> int:
    """Deepest bracket nesting outside JSON strings (an iterative pre-check; YAML flow style counts too)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def _one_line(text: str, limit: int = 200) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit] + "..."


def _inside(root: Path, rel: str) -> str | None:
    """The normalised relative path when ``rel`` stays inside ``root``, else None."""
    if "\0" in rel:
        return None
    pure = PurePosixPath(rel.replace("\\", "/"))
    if pure.is_absolute() or ".." in pure.parts:
        try:
            resolved = Path(os.path.realpath(root / pure))
            return resolved.relative_to(root).as_posix()
        except (ValueError, OSError):
            return None
    return pure.as_posix().removeprefix("./")


# ---- walk ---------------------------------------------------------------------------------------


def scan_workspace(
    root: Path,
    *,
    manifest: Path | None = None,
    workspace_id: str | None = None,
    seed_id: str | None = None,
    assigner: RoleAssigner | None = None,
    max_file_bytes: int | None = None,
) -> WorkspaceScan:
    """Walk ``root`` (symlinks refused, never followed) and give every file a hidden role.

    Roles come from the manifest when it names the file, else from ``assigner`` (default: path rules).
    Nothing in the folder stops the scan: every entry that cannot be taken (a link, pipe or device, an
    unreadable or unlistable folder, a path over the system's length limit, a sparse file over
    ``max_file_bytes`` or any file over 8 times it, a name that is not UTF-8, a broken manifest found
    in the folder) is listed in ``refused`` with its reason, and no byte of it is read. A manifest
    passed explicitly that cannot be read is an error.
    """
    if not root.is_dir():
        raise SourceFormatError(shown_path(str(root)), "workspace folder does not exist or is not a folder")
    try:
        root = Path(os.path.realpath(root, strict=True))
        with os.scandir(root):
            pass
    except OSError as exc:
        raise SourceFormatError(
            shown_path(str(root)), f"workspace folder cannot be read: {exc.strerror or exc}"
        ) from exc
    limit = max_file_bytes if max_file_bytes is not None else ParseLimits().max_file_bytes
    refused: list[tuple[str, str]] = []
    spec = Manifest()
    if manifest is not None:
        spec = read_manifest(manifest)
        manifest_rel = _relative(root, Path(os.path.realpath(manifest)))
    else:
        manifest, manifest_rel = _find_manifest(root), None
        if manifest is not None:
            manifest_rel = manifest.name
            try:
                spec = read_manifest(manifest)
            except SourceFormatError as exc:  # the folder's own manifest is content like any other file
                refused.append((manifest.name, exc.problem))
                manifest = None
    found, walk_refused, skipped = walk_regular_files(root, skip=manifest_rel, max_file_bytes=limit)
    refused += walk_refused
    # Crawled names may hold bytes that are not UTF-8 (Python keeps them as lone surrogates), which the
    # Bolt driver cannot send: one such name failed the whole write. Such a file is refused with its
    # reason, not ingested under a substitute name: the agent's working copy is made from the recorded
    # paths, so a spec would cite a file the agent cannot open.
    bad_names = {rel for rel in found if shown_path(rel) != rel}
    refused += [(rel, "file name is not valid UTF-8; rename the file to ingest it") for rel in bad_names]
    found = [rel for rel in found if rel not in bad_names]
    found_set = set(found)
    by_path: dict[str, ManifestFile] = {}
    for item in spec.files:
        inside = _inside(root, item.path)
        if inside is None:
            refused.append((item.path, "manifest path points outside the workspace"))
        elif inside not in found_set:
            refused.append((item.path, "manifest names a file that is not in the workspace"))
        else:
            by_path[inside] = item
    refused = [(_display(path), reason) for path, reason in refused]
    skipped = [_display(path) for path in skipped]
    unassigned = [p for p in found if p not in by_path or by_path[p].role is None]
    assigned = (assigner or rule_assigner)(unassigned) if unassigned else {}
    candidates = []
    for rel in sorted(found):
        entry = by_path.get(rel)
        role, source = (entry.role, "manifest") if entry is not None and entry.role else assigned[rel]
        candidates.append(
            CandidateFile(
                path=rel,
                abs_path=str(root / rel),
                role=role,
                role_source=source,
                source_url=entry.source_url if entry else None,
                license=entry.license if entry else None,
            )
        )
    name = spec.workspace.name or shown_path(root.name)
    wid = workspace_id or spec.workspace.id or default_workspace_id(root)
    return WorkspaceScan(
        root=root,
        workspace_id=wid,
        name=name,
        seed_id=seed_id or spec.workspace.seed_id,
        manifest=manifest,
        candidates=candidates,
        refused=sorted(set(refused)),
        skipped=sorted(skipped),
    )


def _find_manifest(root: Path) -> Path | None:
    """The first manifest name present at the root (any kind of entry: a bad one is refused, not skipped)."""
    for name in MANIFEST_NAMES:
        try:
            os.lstat(root / name)
        except OSError:
            continue
        return root / name
    return None


def walk_regular_files(
    root: Path, *, max_file_bytes: int, skip: str | None = None
) -> tuple[list[str], list[tuple[str, str]], list[str]]:
    """Regular files under ``root`` as relative paths; (path, reason) for what is refused; skipped debris.

    Iterative (no recursion limit), never follows a link, and reads no file: entries are judged from
    their directory entry and ``lstat`` alone.
    """
    found: list[str] = []
    refused: list[tuple[str, str]] = []
    skipped: list[str] = []
    path_max = _path_max(root)
    stack = [""]
    while stack:
        rel_dir = stack.pop()
        full_dir = os.path.join(root, rel_dir) if rel_dir else str(root)
        try:
            if len(os.fsencode(full_dir)) >= path_max:
                raise OSError(errno.ENAMETOOLONG, os.strerror(errno.ENAMETOOLONG))
            if rel_dir and not _permits_reading(os.lstat(full_dir).st_mode):
                raise OSError(errno.EACCES, os.strerror(errno.EACCES))
            with os.scandir(full_dir) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            refused.append(
                (rel_dir, f"folder cannot be listed: {exc.strerror or exc} (nothing in it was read)")
            )
            continue
        for entry in entries:
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            if rel == skip:
                continue
            try:
                st = entry.stat(follow_symlinks=False)
                if stat.S_ISLNK(st.st_mode):
                    refused.append((rel, _symlink_reason(root, Path(entry.path), "folder or file")))
                elif stat.S_ISDIR(st.st_mode):
                    if entry.name in SKIP_DIRS:
                        skipped.append(rel)
                    else:
                        stack.append(rel)
                elif entry.name in SKIP_FILES:
                    skipped.append(rel)
                elif not stat.S_ISREG(st.st_mode):
                    refused.append((rel, "not a regular file (device, socket or pipe)"))
                elif len(os.fsencode(entry.path)) >= path_max:
                    refused.append(
                        (rel, f"path is {len(os.fsencode(entry.path))} bytes, over the system's limit")
                    )
                elif _too_big_to_hash(st, max_file_bytes):
                    refused.append(
                        (
                            rel,
                            f"file is {st.st_size} bytes, over the {max_file_bytes}-byte limit (never read)",
                        )
                    )
                elif not _permits_reading(st.st_mode) or not os.access(entry.path, os.R_OK):
                    refused.append((rel, "unreadable: Permission denied"))
                else:
                    found.append(rel)
            except OSError as exc:
                if exc.errno == errno.ENAMETOOLONG:
                    reason = f"path is {len(os.fsencode(entry.path))} bytes, over the system's limit"
                else:
                    reason = f"cannot be examined: {exc.strerror or exc}"
                refused.append((rel, reason))
    return found, refused, skipped


OVERSIZE_HASH_FACTOR = 8


def _too_big_to_hash(st: os.stat_result, max_file_bytes: int) -> bool:
    """A file over the size limit is normally hashed and recorded invalid ("over the size limit"); one
    that is sparse (a few blocks claiming gigabytes) or more than OVERSIZE_HASH_FACTOR times the limit
    is refused unread instead: hashing it would cost minutes of reading for nothing."""
    if st.st_size <= max_file_bytes:
        return False
    sparse = st.st_blocks * 512 < st.st_size // 2
    return sparse or st.st_size > OVERSIZE_HASH_FACTOR * max_file_bytes


def _permits_reading(mode: int) -> bool:
    """Whether the permission bits let anyone read: root could read a mode-000 entry anyway, but its
    owner shut it, so it is refused for every user alike."""
    return bool(mode & 0o444)


def _path_max(root: Path) -> int:
    try:
        return os.pathconf(root, "PC_PATH_MAX")
    except (OSError, ValueError):
        return 4096


def default_workspace_id(root: Path) -> str:
    """ws-<folder name>-<hash of the absolute path>: stable across runs on the same folder."""
    slug = re.sub(r"[^a-z0-9]+", "-", shown_path(root.name).lower()).strip("-")[:40] or "workspace"
    where = os.path.realpath(root)
    if shown_path(where) != where:  # undecodable bytes: hash them escaped, so two such folders still differ
        where = os.fsencode(where).decode("utf-8", "backslashreplace")
    return f"ws-{slug}-{stable_hash(where, length=8)}"


def workspace_id_of(root: Path) -> str:
    """The id ``scan_workspace(root)`` gives the folder: its manifest's, else one from its path (no walk)."""
    try:
        root = Path(os.path.realpath(root, strict=True))
    except OSError:
        return default_workspace_id(root)
    found = _find_manifest(root)
    if found is not None:
        try:
            manifest_id = read_manifest(found).workspace.id
        except SourceFormatError:  # the scan refuses a broken manifest of the folder and derives the id
            manifest_id = None
        if manifest_id:
            return manifest_id
    return default_workspace_id(root)


def shown_path(path: str) -> str:
    """``path`` as valid Unicode: undecodable file-name bytes become U+FFFD."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return path


def _display(path: str) -> str:
    """A refused path as it is reported and stored: valid Unicode, and cut when enormous."""
    shown = shown_path(path) or "."
    if len(shown) > _SHOWN_PATH_CHARS:
        return f"{shown[:_SHOWN_PATH_CHARS]}... ({len(shown)} characters)"
    return shown


def _relative(root: Path, path: Path) -> str | None:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return None


def _symlink_reason(root: Path, link: Path, what: str) -> str:
    try:
        target = Path(os.path.realpath(link, strict=True))
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "symlink loop (refused; symlinks are never followed)"
        return "dangling symlink (refused; symlinks are never followed)"
    kind = "folder" if target.is_dir() else "file"
    try:
        target.relative_to(root)
    except ValueError:
        return f"symlinked {kind} pointing outside the workspace (refused)"
    return f"symlinked {kind} (refused; symlinks are never followed)"

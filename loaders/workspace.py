"""Workspace folders → candidate files with hidden roles: walk, manifest (JSON/YAML), role assignment.

Nothing here touches Neo4j; ``load_workspace`` hands the scan to the ``load_workspace`` stage.

Manifest (optional; ``manifest.json|yaml|yml`` or ``graphforge-manifest.*`` at the root, or ``--manifest``):

    {"workspace": {"id": "ws-brightwater", "name": "...", "seed_id": "..."},
     "files": [{"path": "reports/q2.pdf", "role": "core", "source_url": "https://...", "license": "MIT"}]}
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path, PurePosixPath

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from graphforge.context import StageContext
from graphforge.errors import SourceFormatError
from graphforge.models.base import stable_hash
from graphforge.models.workspace import CandidateFile, FileRole
from graphforge.parsers import ParseLimits
from graphforge.stages import load_workspace as stage

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
_ROLE_RULES: list[tuple[FileRole, re.Pattern[str]]] = [
    (
        FileRole.CONFUSER,
        re.compile(
            r"draft|superseded|obsolete|deprecated|outdated|old[_\- ]|backup|\bbak\b|"
            r"prelim|_v\d+\b|[_\- ]v\d+[_\- .]",
            re.IGNORECASE,
        ),
    ),
    (
        FileRole.AMBIENT,
        re.compile(
            r"(^|/)(misc|tmp|temp|archive|other|personal)/|notice|newsletter|readme|"
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


def read_manifest(path: Path) -> Manifest:
    """Parse a JSON or YAML manifest (by content: JSON first, then YAML)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SourceFormatError(path, f"cannot read manifest: {exc.strerror or exc}") from exc
    try:
        data = json.loads(text)
    except ValueError:
        import yaml

        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise SourceFormatError(path, f"manifest is neither JSON nor YAML: {exc}") from exc
    if isinstance(data, list):  # a bare list of file entries is accepted too
        data = {"files": data}
    try:
        return Manifest.model_validate(data or {})
    except ValidationError as exc:
        raise SourceFormatError(
            path,
            f"manifest does not match the schema: {exc.errors()[0]['msg']} at "
            f"{'.'.join(str(x) for x in exc.errors()[0]['loc'])}",
        ) from exc


def _inside(root: Path, rel: str) -> str | None:
    """The normalised relative path when ``rel`` stays inside ``root``, else None."""
    pure = PurePosixPath(rel.replace("\\", "/"))
    if pure.is_absolute() or ".." in pure.parts:
        resolved = (root / pure).resolve()
        try:
            return resolved.relative_to(root).as_posix()
        except ValueError:
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
) -> WorkspaceScan:
    """Walk ``root`` (symlinks refused, never followed) and give every file a hidden role.

    Roles come from the manifest when it names the file, else from ``assigner`` (default: path rules).
    """
    if not root.is_dir():
        raise SourceFormatError(root, "workspace folder does not exist or is not a folder")
    root = root.resolve()
    if manifest is None:
        manifest = next((root / n for n in MANIFEST_NAMES if (root / n).is_file()), None)
    spec = read_manifest(manifest) if manifest is not None else Manifest()
    refused: list[tuple[str, str]] = []
    skipped: list[str] = []
    found: list[str] = []
    manifest_rel = _relative(root, manifest.resolve()) if manifest is not None else None
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        for d in sorted(dirnames):
            full = here / d
            if full.is_symlink():
                refused.append((_relative(root, full) or d, _symlink_reason(root, full, "folder")))
                dirnames.remove(d)
            elif d in SKIP_DIRS:
                skipped.append(_relative(root, full) or d)
                dirnames.remove(d)
        for name in sorted(filenames):
            full = here / name
            rel = _relative(root, full) or name
            if rel == manifest_rel:
                continue
            if name in SKIP_FILES:
                skipped.append(rel)
            elif full.is_symlink():
                refused.append((rel, _symlink_reason(root, full, "file")))
            elif not full.is_file():
                refused.append((rel, "not a regular file (device, socket or pipe)"))
            else:
                found.append(rel)
    # Crawled names may hold bytes that are not UTF-8 (Python keeps them as lone surrogates), which the
    # Bolt driver cannot send: one such name failed the whole write. Such a file is refused with its
    # reason, not ingested under a substitute name: the agent's working copy is made from the recorded
    # paths, so a spec would cite a file the agent cannot open.
    bad_names = {rel for rel in found if _shown(rel) != rel}
    refused += [(rel, "file name is not valid UTF-8; rename the file to ingest it") for rel in bad_names]
    found = [rel for rel in found if rel not in bad_names]
    refused = [(_shown(path), reason) for path, reason in refused]
    skipped = [_shown(path) for path in skipped]
    by_path: dict[str, ManifestFile] = {}
    for entry in spec.files:
        inside = _inside(root, entry.path)
        if inside is None:
            refused.append((entry.path, "manifest path points outside the workspace"))
        elif inside not in found:
            refused.append((entry.path, "manifest names a file that is not in the workspace"))
        else:
            by_path[inside] = entry
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
    name = spec.workspace.name or root.name
    wid = workspace_id or spec.workspace.id or default_workspace_id(root)
    return WorkspaceScan(
        root=root,
        workspace_id=wid,
        name=name,
        seed_id=seed_id or spec.workspace.seed_id,
        manifest=manifest,
        candidates=candidates,
        refused=sorted(refused),
        skipped=sorted(skipped),
    )


def default_workspace_id(root: Path) -> str:
    """ws-<folder name>-<hash of the absolute path>: stable across runs on the same folder."""
    slug = re.sub(r"[^a-z0-9]+", "-", root.name.lower()).strip("-")[:40] or "workspace"
    return f"ws-{slug}-{stable_hash(str(root.resolve()), length=8)}"


def _shown(path: str) -> str:
    """``path`` as valid Unicode: undecodable file-name bytes become U+FFFD."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return path


def _relative(root: Path, path: Path) -> str | None:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return None


def _symlink_reason(root: Path, link: Path, what: str) -> str:
    target = link.resolve()
    try:
        target.relative_to(root)
    except ValueError:
        return f"symlinked {what} pointing outside the workspace (refused)"
    return f"symlinked {what} (refused; symlinks are never followed)"


# ---- ingest -------------------------------------------------------------------------------------


def llm_assigner(ctx: StageContext) -> RoleAssigner | None:
    """The chat-model role assigner when a model is configured, else None (rules are used)."""
    from graphforge.llm import chat_model

    model = chat_model(ctx.settings)
    if model is None:
        return None
    from loaders.workspace_roles import make_llm_assigner

    return make_llm_assigner(model)


def load_workspace(
    ctx: StageContext,
    root: Path,
    *,
    manifest: Path | None = None,
    workspace_id: str | None = None,
    seed_id: str | None = None,
    jobs: int | None = None,
    timeout_s: float = 60.0,
    max_file_bytes: int | None = None,
    retry_invalid: bool = False,
    use_llm_roles: bool = True,
    progress: stage.Progress | None = None,
) -> stage.LoadWorkspaceResult:
    """Scan ``root`` and ingest it: the one call the CLI and the demo make."""
    assigner = llm_assigner(ctx) if use_llm_roles else None
    scan = scan_workspace(
        root, manifest=manifest, workspace_id=workspace_id, seed_id=seed_id, assigner=assigner
    )
    limits = ParseLimits(max_file_bytes=max_file_bytes) if max_file_bytes else ParseLimits()
    params = stage.LoadWorkspaceParams(
        workspace_id=scan.workspace_id,
        name=scan.name,
        root=scan.root,
        files=scan.candidates,
        seed_id=scan.seed_id,
        jobs=jobs,
        timeout_s=timeout_s,
        limits=limits,
        retry_invalid=retry_invalid,
        refused=scan.refused,
    )
    return stage.run(ctx, params, progress)

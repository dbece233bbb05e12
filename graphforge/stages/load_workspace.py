"""Stage 3: ingest a workspace's files into Workspace / File / Span nodes, resumably and in parallel.

The folder is read by ``loaders.workspace.scan_workspace`` (files, manifest, hidden roles); this stage
hashes, parses and writes. Order of writes is what makes a killed run safe to repeat: a file's node, all
its spans, its CONTAINS link and its ``ingested`` flag go in one transaction, so a file is either complete
or absent; the next run skips complete files and parses the rest. Identical bytes are one File node (keyed
by sha256); the extra paths are reported and kept on the CONTAINS link.

Parsing (worker processes) and writing (a thread of this process) overlap: the parsers never wait for a
write, and each write takes every file parsed since the last one.
"""

from __future__ import annotations

import threading
import time
from collections import Counter, deque
from collections.abc import Mapping, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from graphforge.context import StageContext
from graphforge.errors import StageError
from graphforge.graphdb import cypher
from graphforge.graphdb.graph import Graph
from graphforge.models.workspace import CandidateFile, ContainsRow, FileIngestRow, WorkspaceRow
from graphforge.parsers import ParsedFile, ParseLimits, ParseTask, file_digest, parse_files
from graphforge.seeds import fit as seed_fit
from loaders.workspace import RoleAssigner, WorkspaceScan, rule_role, scan_workspace, shown_path

MERGE_WORKSPACES = cypher.load("workspace/merge_workspaces")
MERGE_FILES = cypher.load("workspace/merge_files")
MERGE_WORKSPACE_FILES = cypher.load("workspace/merge_workspace_files")
LINK_WORKSPACE_FILES = cypher.load("workspace/link_workspace_files")
GET_INGESTED_FILES = cypher.load("workspace/get_ingested_files")
DELETE_STALE_CONTAINS = cypher.load("workspace/delete_stale_contains")
COUNT_SEEDS = cypher.load("workspace/count_seeds")

# A write batch closes at whichever comes first; spans dominate transaction size, and span text
# dominates its memory and time (profiled on real files: full text vs 80-char text, 3.4x the write time).
FLUSH_FILES = 64
FLUSH_SPANS = 5_000
FLUSH_CHARS = 8_000_000
# Parsed text waiting for the writer; past it the parsers' results wait (memory stays bounded).
QUEUE_CHARS = 4 * FLUSH_CHARS


class WorkspaceFileRow(FileIngestRow):
    """A parsed file, its spans and its CONTAINS link: one row of the stage's write."""

    link: ContainsRow


class LoadWorkspaceParams(BaseModel):
    """Options of the load_workspace stage."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    root: Path
    manifest: Path | None = Field(None,
        description="None: a manifest.* / graphforge-manifest.* found at the root, if any.")
    workspace_id: str | None = Field(None,
        description="None: the manifest's, else derived from the folder path.")
    seed_id: str | None = None
    jobs: int | None = Field(None, ge=1, description="Parser processes; None: CPU count.")
    timeout_s: float = Field(60.0, gt=0, description="Per file.")
    max_file_bytes: int | None = Field(None, ge=1, description="None: ParseLimits' default.")
    retry_invalid: bool = Field(False,
        description="Re-parse files recorded invalid by an earlier run (e.g. after a timeout).")
    use_llm_roles: bool = Field(True,
        description="Roles the manifest leaves open come from the chat model, when one is set.")
    # Without a seed (none given, none in the manifest, none the user chose on an earlier load), assign the
    # seed that fits the folder best (graphforge.seeds.fit), when seeds exist and one shares words with it.
    fit_seed: bool = True


class InvalidFile(BaseModel):
    path: str
    sha256: str
    format: str
    reason: str


class LoadWorkspaceResult(BaseModel):
    """What the load_workspace stage did."""

    workspace_id: str
    seed_linked: bool
    seed_id: str | None = None
    # "user": given (--seed, the manifest, or chosen on an earlier load and kept); "fit": assigned by its fit.
    seed_source: str | None = None
    seed_fit: float | None = None  # the assigned seed's fit score (seed_source "fit")
    seed_occupation: str | None = None
    seeds_ranked: int = 0  # seeds the fit compared (0: no fit was run)
    files_found: int
    unique_files: int
    duplicates: list[list[str]]  # [kept path, duplicate path, ...] per sha256
    skipped_already_ingested: int
    parsed: int
    valid: int
    invalid: list[InvalidFile]
    refused: list[list[str]]  # [path, reason]: never hashed (symlinks, escapes, unreadable)
    spans_written: int
    # Content a parser could not keep whole (caps hit, pages without text, template rows): [path, warning].
    warnings: list[list[str]] = []
    formats: dict[str, int]
    roles: dict[str, int]
    seconds: float
    files_per_s: float
    nodes_per_s: float  # File + Span nodes written per second of write time
    write_seconds: float = 0.0  # time inside graph writes
    parse_seconds: dict[str, float] = {}  # summed parser time per format (in the worker processes)


def run(ctx: StageContext, params: LoadWorkspaceParams) -> LoadWorkspaceResult:
    """Scan the folder (roles from the manifest, the chat model or the path rules), then ingest it."""
    assigner = _llm_assigner(ctx, params.root) if params.use_llm_roles else None
    limits = ParseLimits(max_file_bytes=params.max_file_bytes) if params.max_file_bytes else ParseLimits()
    scan = scan_workspace(
        params.root,
        manifest=params.manifest,
        workspace_id=params.workspace_id,
        seed_id=params.seed_id,
        assigner=assigner,
        max_file_bytes=limits.max_file_bytes,
    )
    return _ingest(ctx, scan, params, limits)


def _llm_assigner(ctx: StageContext, root: Path) -> RoleAssigner | None:
    """The chat-model role assigner (reading each file's opening under ``root``), or None: rules are used."""
    from graphforge.llm import chat_model

    model = chat_model(ctx.settings)
    if model is None:
        return None
    from graphforge.evidence.workspace_roles import make_llm_assigner

    return make_llm_assigner(model, root, fallback=rule_role)


def _ingest(
    ctx: StageContext, scan: WorkspaceScan, params: LoadWorkspaceParams, limits: ParseLimits
) -> LoadWorkspaceResult:
    started = time.perf_counter()
    refused = [list(r) for r in scan.refused]
    hashed: list[tuple[CandidateFile, str, int]] = []
    for cand in scan.candidates:
        try:
            sha, size = file_digest(Path(cand.abs_path))
        except OSError as exc:
            refused.append([cand.path, f"unreadable: {exc.strerror or exc}"])
            continue
        hashed.append((cand, sha, size))
    groups = group_duplicates(hashed)
    seed_id, seed_source = scan.seed_id, "user" if scan.seed_id else None
    if seed_id is None:  # a seed the user chose on an earlier load stays (a fitted one is fitted again)
        prior = seed_fit.workspace_seed(ctx.graph, scan.workspace_id)
        if prior["seed_id"] and prior["seed_exists"] and prior["seed_source"] in (None, "user"):
            seed_id, seed_source = str(prior["seed_id"]), "user"
    seed_linked = bool(seed_id) and bool(ctx.graph.scalar(COUNT_SEEDS, seed_id=seed_id))
    ctx.graph.write(
        MERGE_WORKSPACES,
        [
            WorkspaceRow(
                workspace_id=scan.workspace_id,
                name=scan.name,
                # Shown, never opened (each file carries its own path): a root whose name is not UTF-8 is
                # stored with U+FFFD in place of the bad bytes, which the Bolt driver could not send.
                root=shown_path(str(scan.root)),
                seed_id=seed_id,
            )
        ],
    )
    if seed_source == "user":  # the one FOR_SEED link (a reload with another --seed drops the old one)
        seed_fit.assign(ctx.graph, scan.workspace_id, seed_id, "user")
    ctx.graph.execute(
        DELETE_STALE_CONTAINS,
        workspace_id=scan.workspace_id,
        current=[f"{c.path}|{sha}" for c, sha, _ in hashed],
    )
    done = {r["sha256"]: r["valid"] for r in ctx.graph.read_dicts(GET_INGESTED_FILES, sha256s=sorted(groups))}
    skip = {sha for sha, valid in done.items() if valid or not params.retry_invalid}
    contains = {sha: contains_row(scan.workspace_id, sha, group) for sha, group in groups.items()}
    # Files already complete only need their (idempotent) links; do it first so a later crash loses nothing.
    ctx.graph.write(LINK_WORKSPACE_FILES, [contains[sha] for sha in sorted(skip)])

    # Smallest files first: most files complete (and become durable) early, and a huge or hostile file
    # cannot delay the many small ones behind it.
    todo = sorted(
        ((sha, group[0]) for sha, group in groups.items() if sha not in skip),
        key=lambda item: (item[1][1], item[0]),
    )
    # No format detection here: the worker detects it; the pool does for a file whose parser never answers.
    tasks = [ParseTask(path=Path(cand.abs_path), sha256=sha, size=size) for sha, (cand, size) in todo]
    # Kept for the result: each file without its spans (the writer drops those once they are written).
    parsed: list[ParsedFile] = []
    if "max_span_chars" not in limits.model_fields_set:  # the setting, unless the caller chose a cap
        limits = limits.model_copy(update={"max_span_chars": ctx.settings.max_span_chars})
    results = parse_files(tasks, limits=limits, timeout_s=params.timeout_s, jobs=params.jobs)
    writer = _Writer(ctx.graph, contains)
    try:
        for count, (index, result) in enumerate(results, start=1):
            cand = todo[index][1][0]
            result = result.model_copy(update={"path": cand.path})
            writer.put(result)
            parsed.append(result.model_copy(update={"spans": []}))
            if ctx.progress is not None:
                ctx.progress(count, len(tasks), cand.path)
        writer.close()
    except OSError as exc:  # worker processes could not be started (process limits, no /dev/shm, ...)
        raise StageError("load_workspace", f"parser workers failed: {exc}") from exc
    finally:
        writer.abort()  # after close(): nothing left; on an error: stops without writing the queue
    write_s, spans_written = writer.seconds, writer.spans_written
    fit: seed_fit.SeedSuggestion | None = None
    if seed_source is None:
        fit = seed_fit.suggest(ctx.graph, scan.workspace_id) if params.fit_seed else None
        best = fit.suggestions[0] if fit and fit.suggestions and fit.suggestions[0].score > 0 else None
        seed_linked = seed_fit.assign(ctx.graph, scan.workspace_id, best.seed_id if best else None,
                                      "fit" if best else None, best.score if best else None)
        seed_id, seed_source = (best.seed_id, "fit") if best else (None, None)
    best_fit = fit.suggestions[0] if fit and seed_source == "fit" else None

    elapsed = time.perf_counter() - started
    invalid = [
        InvalidFile(path=p.path, sha256=p.sha256, format=p.format.value, reason=p.invalid_reason or "")
        for p in parsed
        if not p.valid
    ]
    return LoadWorkspaceResult(
        workspace_id=scan.workspace_id,
        seed_linked=seed_linked,
        seed_id=seed_id,
        seed_source=seed_source,
        seed_fit=best_fit.score if best_fit else None,
        seed_occupation=best_fit.occupation if best_fit else None,
        seeds_ranked=fit.seeds_ranked if fit else 0,
        files_found=len(scan.candidates) + len(scan.refused),
        unique_files=len(groups),
        duplicates=[[c.path for c, _ in g] for _, g in sorted(groups.items()) if len(g) > 1],
        skipped_already_ingested=len(skip),
        parsed=len(parsed),
        valid=sum(p.valid for p in parsed),
        invalid=sorted(invalid, key=lambda i: i.path),
        refused=sorted(refused),
        spans_written=spans_written,
        warnings=sorted([p.path, w] for p in parsed for w in p.warnings),
        formats=dict(Counter(p.format.value for p in parsed)),
        roles=dict(Counter(group[0][0].role.value for group in groups.values())),
        seconds=round(elapsed, 3),
        files_per_s=round(len(parsed) / elapsed, 2) if elapsed else 0.0,
        nodes_per_s=round((len(parsed) + spans_written) / write_s, 1) if write_s else 0.0,
        write_seconds=round(write_s, 3),
        parse_seconds=_parse_seconds(parsed),
    )


class _Writer:
    """Writes parsed files on a thread of its own, so parsing goes on meanwhile.

    Each transaction takes every file queued by then (up to the FLUSH_* caps): batches are one file while
    parsing is the bottleneck and grow while writing is, so the number of commits (each costs the server
    a full-text index update) shrinks exactly when it matters. A write error stops the writer; ``put`` and
    ``close`` raise it in the caller's thread.
    """

    def __init__(self, graph: Graph, contains: Mapping[str, ContainsRow]) -> None:
        self._graph = graph
        self._contains = contains
        self._queue: deque[ParsedFile] = deque()
        self._queued_chars = 0
        self._closed = False
        self._error: BaseException | None = None
        self._cond = threading.Condition()
        self.seconds = 0.0  # inside graph writes
        self.spans_written = 0
        self._thread = threading.Thread(target=self._run, name="load-workspace-writer", daemon=True)
        self._thread.start()

    def put(self, parsed: ParsedFile) -> None:
        """Queue a file for writing; waits while the queue holds over QUEUE_CHARS of text."""
        chars = _text_chars(parsed)
        with self._cond:
            while self._error is None and self._queue and self._queued_chars + chars > QUEUE_CHARS:
                self._cond.wait()
            self._raise_error()
            self._queue.append(parsed)
            self._queued_chars += chars
            self._cond.notify_all()

    def close(self) -> None:
        """Write what is queued, stop the thread, raise its error if it had one."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._thread.join()
        self._raise_error()

    def abort(self) -> None:
        """Drop what is queued, let a write in progress finish (or fail), stop the thread."""
        with self._cond:
            self._queue.clear()
            self._closed = True
            self._cond.notify_all()
        self._thread.join()

    def _raise_error(self) -> None:
        if self._error is not None:
            raise self._error

    def _run(self) -> None:
        try:
            while batch := self._next_batch():
                started = time.perf_counter()
                self._graph.write(MERGE_WORKSPACE_FILES, [workspace_file_row(p, self._contains[p.sha256])
                                                          for p in batch])
                self.seconds += time.perf_counter() - started
                self.spans_written += sum(len(p.spans) for p in batch)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread, which raises it
            with self._cond:
                self._error = exc
                self._cond.notify_all()

    def _next_batch(self) -> list[ParsedFile]:
        """Wait for a file (or the end); take the queued files up to the batch caps."""
        with self._cond:
            while not self._queue and not self._closed:
                self._cond.wait()
            batch: list[ParsedFile] = []
            spans = chars = 0
            while self._queue and len(batch) < FLUSH_FILES and spans < FLUSH_SPANS and chars < FLUSH_CHARS:
                item = self._queue.popleft()
                batch.append(item)
                spans += len(item.spans)
                chars += _text_chars(item)
            self._queued_chars -= chars
            self._cond.notify_all()
            return batch


def _text_chars(parsed: ParsedFile) -> int:
    return sum(len(s.text) for s in parsed.spans)


def _parse_seconds(parsed: Sequence[ParsedFile]) -> dict[str, float]:
    out: dict[str, float] = {}
    for p in parsed:
        out[p.format.value] = out.get(p.format.value, 0.0) + p.parse_seconds
    return {k: round(v, 3) for k, v in sorted(out.items())}


def group_duplicates(
    hashed: Sequence[tuple[CandidateFile, str, int]],
) -> dict[str, list[tuple[CandidateFile, int]]]:
    """sha256 -> its files, shortest path first: that one is kept ("x.csv" over "x (copy).csv")."""
    groups: dict[str, list[tuple[CandidateFile, int]]] = {}
    for cand, sha, size in sorted(hashed, key=lambda h: (len(h[0].path), h[0].path)):
        groups.setdefault(sha, []).append((cand, size))
    return groups


def contains_row(workspace_id: str, sha256: str, group: Sequence[tuple[CandidateFile, int]]) -> ContainsRow:
    """The CONTAINS link of a file: the kept path's role and provenance, the other paths listed."""
    kept = group[0][0]
    return ContainsRow(
        workspace_id=workspace_id,
        sha256=sha256,
        path=kept.path,
        role=kept.role,
        role_source=kept.role_source,
        source_url=kept.source_url,
        license=kept.license,
        duplicate_paths=[c.path for c, _ in group[1:]],
    )


def ingest_row(parsed: ParsedFile) -> FileIngestRow:
    return FileIngestRow(**parsed.file_row().model_dump(), spans=parsed.span_rows())


def workspace_file_row(parsed: ParsedFile, link: ContainsRow) -> WorkspaceFileRow:
    return WorkspaceFileRow(**parsed.file_row().model_dump(), spans=parsed.span_rows(), link=link)


MERGE_SPANS = cypher.load("workspace/merge_spans")


def write_row_by_row(graph: Graph, files: Sequence[ParsedFile]) -> int:
    """The naive baseline (one query and one transaction per node) that bench/ingest_bench compares with.

    Not used by ``run``: it exists so the benchmark measures the same graph shape both ways.
    """
    written = 0
    for parsed in files:
        written += graph.write(MERGE_FILES, [ingest_row(parsed).model_copy(update={"spans": []})])
        for span in parsed.span_rows():
            written += graph.write(MERGE_SPANS, [span])
    return written


DELETE_WORKSPACE = cypher.load("workspace/delete_workspace")


def delete_workspace(graph: Graph, workspace_id: str) -> None:
    """Remove a workspace and the files and spans only it contains (benchmarks and re-imports)."""
    graph.execute(DELETE_WORKSPACE, workspace_id=workspace_id)

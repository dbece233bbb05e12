"""Parse many files in worker processes, each file under a deadline; a hung or crashed worker is replaced.

The workers never import from the current directory or the folder being parsed (a crawled folder is
untrusted input, and ``cd folder && graphforge load workspace .`` makes it the current directory): the
interpreters multiprocessing starts with ``python -c`` (its fork server and resource tracker) start in
safe-path mode, and each worker drops relative entries from the import path it inherits.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

from graphforge.errors import SourceFormatError
from graphforge.parsers.base import ParsedFile, ParseLimits

Target = Callable[..., ParsedFile]
PRELOAD = (
    "graphforge.parsers", "pypdf", "pypdfium2", "openpyxl", "docx", "pptx", "bs4", "lxml.etree", "defusedxml"
)


@dataclass(frozen=True)
class ParseTask:
    """One file to parse; ``sha256``/``size`` come from the caller, who hashed it to deduplicate."""

    path: Path
    sha256: str
    size: int
    # The format for the record if the parser never answers; "unknown": detected then, from the bytes
    # (only for the few files that time out or crash, not up front for every file).
    format_hint: str = "unknown"


def _default_target() -> Target:
    from graphforge.parsers import parse_file

    return parse_file


# What the interpreters multiprocessing starts (`python -c ...`) must not take from the caller's
# environment: `-c` puts the current directory first on sys.path unless safe-path mode is on (3.11:
# PYTHONSAFEPATH, the -P flag), and an empty or relative PYTHONPATH entry means the current directory too.
_LAUNCH_LOCK = threading.Lock()


@contextlib.contextmanager
def _isolated_launch() -> Iterator[None]:
    """While worker processes (and the fork server and resource tracker behind them) are started."""
    keys = ("PYTHONSAFEPATH", "PYTHONNOUSERSITE", "PYTHONPATH")
    with _LAUNCH_LOCK:
        saved = {key: os.environ.get(key) for key in keys}
        os.environ["PYTHONSAFEPATH"] = "1"
        os.environ["PYTHONNOUSERSITE"] = "1"
        kept = [p for p in (saved["PYTHONPATH"] or "").split(os.pathsep) if os.path.isabs(p)]
        if kept:
            os.environ["PYTHONPATH"] = os.pathsep.join(kept)
        else:
            os.environ.pop("PYTHONPATH", None)
        try:
            yield
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


def _trusted_sys_path() -> None:
    """Drop '' and relative entries (the current directory, wherever the worker stands) from sys.path."""
    sys.path[:] = [p for p in sys.path if p and os.path.isabs(p)]


def _serve(conn: Connection, target: Target | None, limits: ParseLimits, memory_bytes: int | None) -> None:
    """Worker loop: receive (index, task), send (index, ParsedFile as dict); None stops it.

    A worker whose parent went away (the loader killed, its end of the pipe closed) or that gets Ctrl-C
    exits quietly: the loader reports what happened, not a traceback per worker.
    """
    _trusted_sys_path()
    _die_with_parent()
    # Ctrl-C reaches the whole process group; the loader stops its workers itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(BrokenPipeError, ConnectionResetError, EOFError):
        _serve_loop(conn, target, limits, memory_bytes)


def _serve_loop(
    conn: Connection, target: Target | None, limits: ParseLimits, memory_bytes: int | None
) -> None:
    if memory_bytes:
        import resource

        # A decompression bomb inside a PDF stream must kill this worker's allocation, not the machine.
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    fn = target or _default_target()
    conn.send("ready")
    while True:
        message = conn.recv()
        if message is None:
            return
        index, task = message
        try:
            parsed = fn(task.path, limits, sha256=task.sha256, size=task.size)
            payload: dict[str, Any] | str = parsed.model_dump(mode="json")
        except SourceFormatError as exc:
            payload = f"unreadable: {exc.problem}"
        except MemoryError:
            payload = "parser ran out of memory (worker memory cap)"
        except Exception as exc:  # a target bug must not take the worker down silently
            payload = f"parser failed: {type(exc).__name__}: {exc}"
        conn.send((index, payload))


def _die_with_parent() -> None:
    """Linux: have the kernel kill this worker when its parent dies (a kill -9 of the loader must not
    leave a parser grinding on a hostile file for minutes)."""
    try:
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class _Worker:
    def __init__(
        self, ctx: Any, target: Target | None, limits: ParseLimits, memory_bytes: int | None
    ) -> None:
        self.conn, child = ctx.Pipe()
        self.process: BaseProcess = ctx.Process(
            target=_serve, args=(child, target, limits, memory_bytes), daemon=True
        )
        self.process.start()
        child.close()
        # Wait for the worker to be up before it gets a file: a file's deadline must not pay for a slow
        # start of its process on a loaded machine.
        if not self.conn.poll(120.0):
            raise OSError("parser worker did not start within 120 s")
        try:
            self.conn.recv()
        except EOFError as exc:
            raise OSError(f"parser worker exited at start (exit code {self.process.exitcode})") from exc
        self.job: tuple[int, ParseTask, float] | None = None  # (index, task, deadline)

    def stop(self, kill: bool = False) -> None:
        if not kill:
            try:
                self.conn.send(None)
            except OSError:
                kill = True
            self.process.join(2.0)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(5.0)
        self.conn.close()


def _start_worker(ctx: Any, target: Target | None, limits: ParseLimits, memory_bytes: int | None) -> _Worker:
    with _isolated_launch():
        return _Worker(ctx, target, limits, memory_bytes)


def failed(task: ParseTask, reason: str, started: float) -> ParsedFile:
    """The record of a file whose parser never answered (timeout, crash)."""
    from graphforge.models.workspace import FileFormat

    hint = task.format_hint
    if hint == FileFormat.UNKNOWN.value:
        from graphforge.parsers.detect import detect_format

        try:
            hint = detect_format(task.path).format.value
        except Exception:  # noqa: BLE001  (any failure here leaves the format unknown; the record stands)
            pass
    fmt = FileFormat(hint) if hint in FileFormat._value2member_map_ else FileFormat.UNKNOWN
    return ParsedFile(
        path=str(task.path),
        sha256=task.sha256,
        size=task.size,
        format=fmt,
        valid=False,
        invalid_reason=reason,
        parse_seconds=round(time.perf_counter() - started, 4),
    )


def parse_files(
    tasks: Sequence[ParseTask],
    *,
    limits: ParseLimits | None = None,
    timeout_s: float = 60.0,
    jobs: int | None = None,
    memory_mb: int | None = 2048,
    target: Target | None = None,
    on_idle: Callable[[], None] | None = None,
) -> Iterator[tuple[int, ParsedFile]]:
    """Yield ``(index into tasks, ParsedFile)`` as files finish, in completion order.

    Args:
        timeout_s: per-file deadline; past it the worker is killed and the file recorded as timed out.
        jobs: worker processes (default: CPU count, at most the number of tasks).
        memory_mb: address-space cap per worker (None: no cap).
        target: the parse function (module-level, picklable); ``parse_file`` unless a test swaps it.
        on_idle: called whenever every worker is busy and no result is ready yet (the caller writes
            what it has buffered then, so slow files never hold finished ones back).
    """
    limits = limits or ParseLimits()
    if not tasks:
        return
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(tasks)))
    # forkserver: workers fork from a clean helper process, never from a parent holding driver threads.
    ctx = mp.get_context("forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn")
    if ctx.get_start_method() == "forkserver":
        # The helper imports the parsers once; every worker (and every replacement after a kill) forks warm.
        ctx.set_forkserver_preload(list(PRELOAD))
    memory = memory_mb * 1024 * 1024 if memory_mb else None
    pending = deque(enumerate(tasks))
    workers = [_start_worker(ctx, target, limits, memory) for _ in range(jobs)]
    started_at: dict[int, float] = {}
    try:
        while pending or any(w.job for w in workers):
            for i, worker in enumerate(workers):
                if worker.job is None and pending:
                    index, task = pending.popleft()
                    try:
                        worker.conn.send((index, task))
                    except OSError:  # the worker died between jobs: replace it and retry this task
                        worker.stop(kill=True)
                        workers[i] = worker = _start_worker(ctx, target, limits, memory)
                        worker.conn.send((index, task))
                    started_at[index] = time.perf_counter()
                    worker.job = (index, task, started_at[index] + timeout_s)
            busy = [w for w in workers if w.job]
            next_deadline = min(w.job[2] for w in busy if w.job)
            ready = wait([w.conn for w in busy], timeout=0)
            if not ready:
                if on_idle is not None:
                    on_idle()
                ready = wait([w.conn for w in busy], timeout=max(0.0, next_deadline - time.perf_counter()))
            for i, worker in enumerate(workers):
                if worker.job is None:
                    continue
                index, task, deadline = worker.job
                if worker.conn in ready:
                    try:
                        got_index, payload = worker.conn.recv()
                    except (EOFError, OSError):
                        worker.process.join(2.0)  # reap it, so its exit code (signal < 0) is known
                        code = worker.process.exitcode
                        worker.stop(kill=True)
                        workers[i] = _start_worker(ctx, target, limits, memory)
                        yield (
                            index,
                            failed(task, f"parser process died (exit code {code})", started_at[index]),
                        )
                        continue
                    worker.job = None
                    if isinstance(payload, str):
                        yield got_index, failed(task, payload, started_at[index])
                    else:
                        yield got_index, ParsedFile.model_validate(payload)
                elif time.perf_counter() >= deadline and not worker.conn.poll():
                    # `ready` was taken before this loop yielded results and replaced workers (both can take
                    # seconds): a result that arrived since is read next round, not killed as a timeout.
                    worker.stop(kill=True)
                    workers[i] = _start_worker(ctx, target, limits, memory)
                    yield (
                        index,
                        failed(
                            task, f"parser timed out after {timeout_s:g}s (worker killed)", started_at[index]
                        ),
                    )
    finally:
        for worker in workers:
            worker.stop(kill=worker.job is not None)

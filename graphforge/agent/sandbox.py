"""Run agent-written Python in a subprocess: own workspace copy, time and memory caps, no network."""

from __future__ import annotations

import functools
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

# Runs before the agent's script in the child: applies the resource limits (here rather than in a
# preexec_fn, which is unsafe in the threaded parent), refuses internet sockets even when no network
# namespace could be made (defence in depth when it could), then runs the script as __main__.
_BOOTSTRAP = """\
import resource, runpy, socket, sys
for _name, _value in zip(("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_CORE"), sys.argv[1:5]):
    _kind, _limit = getattr(resource, _name), int(_value)
    _hard = resource.getrlimit(_kind)[1]
    _new_hard = _limit + 1 if _name == "RLIMIT_CPU" else _limit
    if _hard != resource.RLIM_INFINITY:  # an unprivileged process cannot raise its hard limit
        _new_hard = min(_new_hard, _hard)
    resource.setrlimit(_kind, (min(_limit, _new_hard), _new_hard))
_real = socket.socket
class _Blocked(_real):
    def __init__(self, family=-1, type=-1, proto=-1, fileno=None):
        if family in (socket.AF_INET, socket.AF_INET6) or (family == -1 and fileno is None):
            raise PermissionError("network access is disabled in the GraphForge sandbox")
        super().__init__(family, type, proto, fileno)
def _no_connection(*args, **kwargs):
    raise PermissionError("network access is disabled in the GraphForge sandbox")
socket.socket = _Blocked
socket.create_connection = _no_connection
socket.getaddrinfo = _no_connection
import os
_real_path, _sep = os.path.realpath, os.sep
_box, _home = _real_path(os.getcwd()), _real_path(os.environ["HOME"])
_writable = (_box, _home)
_readable = _writable + tuple(sorted({_real_path(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix,
    sys.base_exec_prefix)})) + ("/usr", "/lib", "/lib32", "/lib64", "/etc", "/dev", "/sys/devices/system")
_own_proc = ("/proc/self", "/proc/thread-self", "/proc/" + str(os.getpid()))
_write_flags = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
def _inside(path, roots):
    return any(path == r or path.startswith(r + _sep) for r in roots)
def _refuse(what):
    raise PermissionError(what + " is outside the GraphForge sandbox's working copy")
def _guard(event, args):
    # An audit hook sees every open, including those of C extensions' Python callers and of _socket,
    # and cannot be removed from Python: files outside the copy, other processes and the network stay shut.
    if event == "open":
        path, mode, flags = args
        if not isinstance(path, (str, bytes)):
            return
        real = _real_path(os.fsdecode(path))
        writes = any(c in (mode or "") for c in "wax+") or bool((flags or 0) & _write_flags)
        if writes and not (_inside(real, _writable) or real == "/dev/null"):
            _refuse("writing " + real)
        if real.startswith("/proc/"):
            rest = real[len("/proc/"):].split(_sep, 1)[0]
            if rest.isdigit() and not _inside(real, _own_proc):
                _refuse("reading another process's " + real)
        elif not writes and not _inside(real, _readable):
            _refuse("reading " + real)
    elif event in ("socket.connect", "socket.sendto", "socket.sendmsg", "socket.bind"):
        if args[0].family != socket.AF_UNIX:
            raise PermissionError("network access is disabled in the GraphForge sandbox")
    elif event in ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork",
                   "os.forkpty"):
        raise PermissionError(event + " is disabled in the GraphForge sandbox")
    elif event == "ctypes.dlopen" and args[0] and _sep in os.fsdecode(args[0]):
        # numpy loads ctypes (the interpreter itself, name None); a library the script wrote is refused.
        if not _inside(_real_path(os.fsdecode(args[0])), _readable[len(_writable):]):
            _refuse("loading " + os.fsdecode(args[0]))
    elif event in ("os.symlink", "os.link"):
        _refuse("linking " + str(args[0]))
sys.addaudithook(_guard)
sys.argv = ["main.py"]
runpy.run_path("main.py", run_name="__main__")
"""


@dataclass(frozen=True)
class SandboxLimits:
    wall_s: float = 60.0
    memory_mb: int = 1024  # address space; numpy/openpyxl/polars need a few hundred MB
    max_output_chars: int = 20_000  # per stream, the rest is cut with a "[truncated" marker
    max_file_mb: int = 64  # largest file a script may write (RLIMIT_FSIZE)
    max_sync_files: int = 200  # most new/changed files copied back to the working directory


@dataclass(frozen=True)
class SandboxResult:
    exit_code: int | None  # None when killed for time
    stdout: str
    stderr: str
    timed_out: bool
    network_isolation: str  # "netns" (unshare -n) or "socket-guard"
    changed_files: list[str] = field(default_factory=list)  # relative paths synced back

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out


@functools.cache
def netns_available() -> bool:
    """Whether ``unshare -n`` can give the child an empty network namespace (root, or user namespaces)."""
    if not sys.platform.startswith("linux") or shutil.which("unshare") is None:
        return False
    try:
        probe = subprocess.run(["unshare", "-n", "true"], capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 0


def _truncate(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[truncated {len(text) - limit} chars]"


def _limit_args(limits: SandboxLimits) -> list[str]:
    """RLIMIT_AS, RLIMIT_CPU (soft; hard is one more), RLIMIT_FSIZE, RLIMIT_CORE for the bootstrap."""
    mib = 1024 * 1024
    return [str(limits.memory_mb * mib), str(int(limits.wall_s) + 1), str(limits.max_file_mb * mib), "0"]


def _snapshot(root: Path) -> dict[str, tuple[int, int]]:
    return {
        p.relative_to(root).as_posix(): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in root.rglob("*")
        if p.is_file() and not p.is_symlink()
    }


def _child_env(home: Path) -> dict[str, str]:
    # A clean environment: nothing of the parent's (API keys, GRAPHFORGE_* settings) reaches the script.
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONIOENCODING": "utf-8",
        "MPLBACKEND": "Agg",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "POLARS_MAX_THREADS": "1",
        "TMPDIR": str(home),
    }


def run_python(
    code: str, workdir: Path, limits: SandboxLimits | None = None, *, sync_back: bool = True
) -> SandboxResult:
    """Run ``code`` as ``main.py`` inside a temporary copy of ``workdir``.

    Files the script creates or changes are copied back into ``workdir`` when ``sync_back`` (that is
    how an agent writes an XLSX deliverable); deletions are not, and nothing outside ``workdir``
    is ever touched.
    """
    limits = limits or SandboxLimits()
    with tempfile.TemporaryDirectory(prefix="graphforge-sandbox-") as tmp:
        box, home = Path(tmp) / "work", Path(tmp) / "home"
        shutil.copytree(workdir, box, symlinks=False, ignore_dangling_symlinks=True)
        home.mkdir()
        (box / "main.py").write_text(code, encoding="utf-8")
        before = _snapshot(box)
        isolation = "netns" if netns_available() else "socket-guard"
        argv = [sys.executable, "-I", "-c", _BOOTSTRAP, *_limit_args(limits)]
        if isolation == "netns":
            argv = ["unshare", "-n", "--", *argv]
        proc = subprocess.Popen(
            argv,
            cwd=box,
            env=_child_env(home),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        timed_out = False
        try:
            out, err = proc.communicate(timeout=limits.wall_s)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(proc.pid, signal.SIGKILL)  # the whole session: children the script spawned too
            out, err = proc.communicate()
        changed: list[str] = []
        if sync_back:
            after = _snapshot(box)
            for rel, stamp in sorted(after.items()):
                if rel == "main.py" or before.get(rel) == stamp:
                    continue
                if len(changed) >= limits.max_sync_files:
                    break
                target = workdir / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(box / rel, target)
                changed.append(rel)
        stderr = err.decode("utf-8", "replace")
        if timed_out:
            stderr += f"\nkilled: the script ran past the {limits.wall_s:g} s time limit"
        elif proc.returncode is not None and proc.returncode < 0:
            stderr += f"\nkilled by signal {-proc.returncode} (CPU or memory limit?)"
        return SandboxResult(
            exit_code=None if timed_out else proc.returncode,
            stdout=_truncate(out.decode("utf-8", "replace"), limits.max_output_chars),
            stderr=_truncate(stderr, limits.max_output_chars),
            timed_out=timed_out,
            network_isolation=isolation,
            changed_files=changed,
        )

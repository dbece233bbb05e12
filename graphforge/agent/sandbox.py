"""Run agent-written Python behind an OS boundary: bubblewrap namespaces, a seccomp filter and rlimits.

Each call runs the script with ``bwrap`` in a fresh box:

- new user, PID, mount, network, IPC, UTS (and cgroup, where the kernel allows) namespaces; inside,
  the script runs as uid/gid 65534 with every capability dropped and no way to make a further user
  namespace;
- a read-only root file system holding only read-only binds of ``/usr`` and the Python runtime (the
  interpreter's prefix and the virtual environment, wherever they live, /tmp included), a fresh
  ``/proc`` of the new PID namespace and a minimal read-only ``/dev``; the only writable places are
  ``/sandbox`` (the working directory: a copy of the working folder) and ``/tmp`` (``HOME`` and
  ``TMPDIR``), two size-capped tmpfs mounts of the box's own (``SandboxLimits.write_budget_mb`` of new
  data together, at most a quarter of the memory limit), so a script can fill neither the host's disk
  nor its shared memory;
- the copy goes in and the results come out through a directory descriptor of the box's ``/sandbox``
  that the bootstrap hands to the parent before the script's first line (an ``AF_UNIX`` socket pair);
  the parent copies the working folder in through it and reads new files back through it after the box
  is gone, every path component opened without following links;
- an environment built from scratch (``--clearenv``): nothing of the caller's reaches the script;
- a seccomp filter (libseccomp, exported as BPF and handed to ``bwrap --seccomp``): no new processes
  (``fork``/``vfork``/``clone`` without ``CLONE_THREAD``, ``clone3``), no sockets but ``AF_UNIX``, no
  ``ptrace``, mounts, namespaces, kernel keyrings, BPF, ``perf_event_open``, ``io_uring``, module loading;
- rlimits on address space, CPU time, file size, open files, processes and core dumps, set inside the
  boundary before the script's first line;
- a wall-clock limit; at the limit (or when output passes its cap) the outer ``bwrap`` is killed, its
  PID-namespace init dies with it (``--die-with-parent``) and the kernel kills every process left in
  the namespace, so nothing the script started outlives the call or holds its pipes;
- stdout and stderr read as they come, keeping at most a fixed number of bytes of each.

When ``bwrap`` or the seccomp bindings are missing, or the kernel refuses the namespaces, no code runs:
:class:`SandboxUnavailable` is raised (there is no unsandboxed fallback).
"""

from __future__ import annotations

import functools
import os
import selectors
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from graphforge.errors import ConfigError

# Inside the boundary, before the script: hand the parent a descriptor of /sandbox (it copies the working
# folder in through it, and reads the results back through it after the box is gone), wait for its go,
# then the rlimits (a hard limit, once lowered, cannot be raised again without CAP_SYS_RESOURCE, which the
# script does not have), then the script as __main__.
_BOOTSTRAP = """\
import os, resource, runpy, socket, sys
_channel = socket.socket(fileno=int(sys.argv[1]))
_box = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
socket.send_fds(_channel, [b"box"], [_box])
os.close(_box)
_go = _channel.recv(1)
_channel.close()
if _go != b"1":
    raise SystemExit(125)
_names = ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_NOFILE", "RLIMIT_NPROC", "RLIMIT_CORE")
for _name, _value in zip(_names, sys.argv[2:8]):
    _kind, _limit = getattr(resource, _name), int(_value)
    _hard = resource.getrlimit(_kind)[1]
    _new_hard = _limit + 1 if _name == "RLIMIT_CPU" else _limit
    if _hard != resource.RLIM_INFINITY:
        _new_hard = min(_new_hard, _hard)
    resource.setrlimit(_kind, (min(_limit, _new_hard), _new_hard))
del _names, _name, _value, _kind, _limit, _hard, _new_hard, _channel, _box, _go
sys.argv = ["main.py"]
runpy.run_path("main.py", run_name="__main__")
"""

BOX = "/sandbox"  # the working copy, the script's working directory
SCRATCH = "/tmp"  # HOME and TMPDIR
SANDBOX_UID = 65534
ISOLATION = "bwrap"


class SandboxUnavailable(ConfigError):
    """The OS boundary cannot be set up here, so agent code is not run at all."""


@dataclass(frozen=True)
class SandboxLimits:
    wall_s: float = 60.0
    memory_mb: int = 1024  # address space; numpy/openpyxl/polars need a few hundred MB
    max_output_chars: int = 20_000  # per stream kept in the result, the rest cut with a "[truncated" marker
    max_output_bytes: int = 4_000_000  # both streams together: past this the script is killed
    max_file_mb: int = 64  # largest file a script may write (RLIMIT_FSIZE)
    max_open_files: int = 256
    max_processes: int = 64  # RLIMIT_NPROC (threads count); new processes are refused by seccomp anyway
    max_sync_files: int = 200  # most new/changed files copied back to the working directory
    # New data /sandbox and /tmp may hold together (RAM-backed tmpfs mounts of the box's own, so kept well
    # below memory_mb: at most a quarter of it): /tmp gets a quarter, /sandbox the rest on top of the
    # copied working folder.
    write_mb: int = 256

    def __post_init__(self) -> None:
        if self.write_mb < 4:
            raise ValueError("SandboxLimits.write_mb must be at least 4")

    @property
    def write_budget_mb(self) -> int:
        """``write_mb``, or a quarter of ``memory_mb`` when that is less (never under 4 MiB)."""
        return max(4, min(self.write_mb, self.memory_mb // 4))


@dataclass(frozen=True)
class SandboxResult:
    exit_code: int | None  # None when killed for time or output
    stdout: str
    stderr: str
    timed_out: bool
    network_isolation: str  # always "bwrap": an empty network namespace
    changed_files: list[str] = field(default_factory=list)  # relative paths synced back
    output_capped: bool = False  # killed because the output passed max_output_bytes

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out and not self.output_capped


# ---- the boundary -------------------------------------------------------------------------------


def bwrap_binary() -> str | None:
    return shutil.which("bwrap")


# Syscalls refused outright (EPERM): kernel attack surface and ways out of the namespaces.
_DENIED_SYSCALLS = (
    "fork",
    "vfork",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "kcmp",
    "pidfd_getfd",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "unshare",
    "setns",
    "move_mount",
    "open_tree",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "keyctl",
    "add_key",
    "request_key",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "reboot",
    "swapon",
    "swapoff",
    "acct",
    "quotactl",
    "syslog",
    "open_by_handle_at",
    "name_to_handle_at",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
    "mknod",
    "mknodat",
    "personality",
    "uselib",
    "lookup_dcookie",
    "vhangup",
    "nfsservctl",
)
_CLONE_THREAD = 0x00010000
_AF_UNIX = 1


@functools.cache
def _seccomp_program() -> bytes:
    """The BPF program bwrap installs just before it executes the interpreter."""
    import errno

    import pyseccomp as sc  # type: ignore[import-untyped]

    filt = sc.SyscallFilter(sc.ALLOW)
    for name in _DENIED_SYSCALLS:
        try:
            filt.add_rule(sc.ERRNO(errno.EPERM), name)
        except (OSError, ValueError, RuntimeError):
            continue  # a syscall this architecture does not have
    # Threads (clone with CLONE_THREAD) are allowed, processes are not. clone3 passes its flags in
    # memory a filter cannot read, so it answers ENOSYS and the C library falls back to clone.
    filt.add_rule(sc.ERRNO(errno.EPERM), "clone", sc.Arg(0, sc.MASKED_EQ, _CLONE_THREAD, 0))
    filt.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    # Only Unix sockets: the network namespace is empty anyway, and netlink/packet sockets stay shut.
    filt.add_rule(sc.ERRNO(errno.EAFNOSUPPORT), "socket", sc.Arg(0, sc.NE, _AF_UNIX))
    filt.add_rule(sc.ERRNO(errno.EAFNOSUPPORT), "socketpair", sc.Arg(0, sc.NE, _AF_UNIX))
    with tempfile.TemporaryFile() as fh:
        filt.export_bpf(fh)
        fh.seek(0)
        return fh.read()


def _runtime_paths() -> list[str]:
    """Read-only folders the interpreter needs: its prefixes and site-packages folders, never a checkout."""
    wanted = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    wanted |= {p for p in sys.path if p and ("site-packages" in p or "dist-packages" in p)}
    wanted.add(os.path.dirname(os.path.realpath(sys.executable)))
    out: list[str] = []
    for path in sorted(wanted, key=len):
        if not os.path.isdir(path):
            continue
        if any(path == done or path.startswith(done.rstrip("/") + "/") for done in ["/usr", *out]):
            continue  # already visible through a parent bind
        out.append(path)
    return out


def _root_links() -> list[str]:
    """/bin, /lib, /lib64, /sbin as on the host: symlinks into /usr (merged /usr) or read-only binds."""
    args: list[str] = []
    for name in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(name):
            args += ["--symlink", os.readlink(name), name]
        elif os.path.isdir(name):
            args += ["--ro-bind", name, name]
    return args


def _sandbox_env() -> dict[str, str]:
    # Built from nothing: no API keys, no GRAPHFORGE_* or NEO4J_* settings, no proxy variables. (The
    # interpreter runs with -I, which ignores PYTHON* variables: -u and -B stand in for them.)
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": SCRATCH,
        "TMPDIR": SCRATCH,
        "USER": "sandbox",
        "LOGNAME": "sandbox",
        "LANG": "C.UTF-8",
        "MPLBACKEND": "Agg",
        "MPLCONFIGDIR": f"{SCRATCH}/.matplotlib",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "POLARS_MAX_THREADS": "1",
    }


def bwrap_argv(
    bwrap: str, seccomp_fd: int, channel_fd: int, box_bytes: int, tmp_bytes: int, limits: SandboxLimits
) -> list[str]:
    """The full command line: namespaces, mounts, environment, seccomp, then the bootstrap.

    Mount order matters: the two size-capped tmpfs mounts come before the runtime binds (so a runtime
    under /tmp shows through the box's /tmp), and the root and /dev are remounted read-only last.
    """
    argv = [
        bwrap,
        "--unshare-user",
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--disable-userns",
        "--uid",
        str(SANDBOX_UID),
        "--gid",
        str(SANDBOX_UID),
        "--hostname",
        "sandbox",
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
        "--ro-bind",
        "/usr",
        "/usr",
        *_root_links(),
        "--size",
        str(tmp_bytes),
        "--tmpfs",
        SCRATCH,
        "--size",
        str(box_bytes),
        "--tmpfs",
        BOX,
    ]
    for path in _runtime_paths():
        argv += ["--ro-bind", path, path]
    for path in ("/etc/ld.so.cache", "/etc/localtime"):
        argv += ["--ro-bind-try", path, path]
    argv += [
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--remount-ro",
        "/dev",
        "--remount-ro",
        "/",
        "--chdir",
        BOX,
        "--clearenv",
    ]
    for key, value in _sandbox_env().items():
        argv += ["--setenv", key, value]
    argv += [
        "--seccomp",
        str(seccomp_fd),
        "--",
        sys.executable,
        "-I",
        "-u",
        "-B",
        "-c",
        _BOOTSTRAP,
        str(channel_fd),
        *_limit_args(limits),
    ]
    return argv


def _limit_args(limits: SandboxLimits) -> list[str]:
    mib = 1024 * 1024
    return [
        str(limits.memory_mb * mib),
        str(int(limits.wall_s) + 1),
        str(limits.max_file_mb * mib),
        str(limits.max_open_files),
        str(limits.max_processes),
        "0",
    ]


@functools.cache
def sandbox_problem() -> str | None:
    """Why the boundary cannot be set up here (None when it can); probed once per process."""
    if not sys.platform.startswith("linux"):
        return "the agent's Python sandbox needs Linux namespaces"
    bwrap = bwrap_binary()
    if bwrap is None:
        return (
            "the agent's Python sandbox needs bubblewrap (`bwrap`), which is not installed; install it "
            "(Debian/Ubuntu: apt-get install bubblewrap); code is never run outside the sandbox"
        )
    for path in _runtime_paths():
        # Under /tmp is fine (bound over the box's own /tmp), but not /tmp itself or under /sandbox.
        if path == SCRATCH or path == BOX or path.startswith(BOX + "/"):
            return f"the Python runtime lives under {path}, which the sandbox mounts over"
    try:
        _seccomp_program()
    except ImportError:
        return (
            "the agent's Python sandbox needs the seccomp bindings (pip install 'graphforge[sandbox]', "
            "i.e. pyseccomp) and the system libseccomp"
        )
    except (OSError, RuntimeError, AttributeError) as exc:
        return f"the sandbox's seccomp filter could not be built: {exc}"
    with tempfile.TemporaryDirectory(prefix="graphforge-probe-") as tmp:
        try:
            box = _Box.start(bwrap, "pass\n", Path(tmp), SandboxLimits(), timeout_s=60)
        except _BoxFailed as exc:
            return str(exc)
        try:
            box.go()
            try:
                code = box.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                _kill(box.proc)
                return "bubblewrap could not run: the probe did not finish within 60 s"
            err = box.proc.stderr.read() if box.proc.stderr is not None else b""
        finally:
            box.close()
    if code != 0:
        tail = err.decode("utf-8", "replace").strip().splitlines()
        return "bubblewrap could not set up the sandbox's namespaces here" + (
            f": {tail[-1]}" if tail else f" (exit status {code})"
        )
    return None


def require_sandbox() -> None:
    """Raise :class:`SandboxUnavailable` unless agent code can run behind the boundary."""
    problem = sandbox_problem()
    if problem is not None:
        raise SandboxUnavailable(problem)


def _program_fd(program: bytes) -> int:
    fd = os.memfd_create("graphforge-seccomp")  # close-on-exec; pass_fds hands it to bwrap alone
    os.write(fd, program)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


# ---- the box: started, filled, drained ----------------------------------------------------------

_PAGE = 4096
_MIB = 1024 * 1024


class _BoxFailed(Exception):
    """bwrap exited (or hung) before the bootstrap handed over the box."""


def _plan_copy(src: Path) -> tuple[list[str], list[tuple[str, int]]]:
    """The working folder's folders and regular files (relative paths, sizes): links, pipes and devices
    stay behind."""
    dirs: list[str] = []
    files: list[tuple[str, int]] = []
    for dirpath, dirnames, filenames in os.walk(src, followlinks=False):
        here = Path(dirpath)
        for d in list(dirnames):
            if (here / d).is_symlink():
                dirnames.remove(d)
            else:
                dirs.append((here / d).relative_to(src).as_posix())
        for name in filenames:
            full = here / name
            try:
                st = os.lstat(full)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                files.append((full.relative_to(src).as_posix(), st.st_size))
    return dirs, files


def _pages(size: int) -> int:
    return -(-size // _PAGE) * _PAGE


class _Box:
    """A running box and a directory descriptor of its /sandbox tmpfs, which outlives the box (so the
    results can be read after it is gone) until :meth:`close`."""

    def __init__(self, proc: subprocess.Popen[bytes], channel: socket.socket, root_fd: int) -> None:
        self.proc = proc
        self.channel = channel
        self.root_fd = root_fd

    @classmethod
    def start(cls, bwrap: str, code: str, workdir: Path, limits: SandboxLimits, timeout_s: float) -> _Box:
        """Start bwrap, take the box's /sandbox from the bootstrap and copy the working folder and
        ``main.py`` into it; the script waits for :meth:`go`."""
        dirs, files = _plan_copy(workdir)
        main = code.encode("utf-8")
        budget = limits.write_budget_mb * _MIB
        tmp_bytes = budget // 4
        box_bytes = (
            sum(_pages(size) for _, size in files)
            + _pages(len(main))
            + _PAGE * (len(dirs) + len(files) + 2)
            + (budget - tmp_bytes)
        )
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        seccomp_fd = _program_fd(_seccomp_program())
        try:
            proc = subprocess.Popen(
                bwrap_argv(bwrap, seccomp_fd, child.fileno(), box_bytes, tmp_bytes, limits),
                pass_fds=(seccomp_fd, child.fileno()),
                env={},
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            parent.close()
            raise _BoxFailed(f"bubblewrap could not run: {exc}") from exc
        finally:
            os.close(seccomp_fd)
            child.close()
        root_fd = -1
        try:
            parent.settimeout(timeout_s)
            _msg, fds, _flags, _addr = socket.recv_fds(parent, 16, 1)
            if fds:
                root_fd = fds[0]
                for extra in fds[1:]:
                    os.close(extra)
        except OSError:  # a timeout included
            pass
        if root_fd < 0 or not stat.S_ISDIR(os.fstat(root_fd).st_mode):
            _kill(proc)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            err = proc.stderr.read() if proc.stderr is not None and proc.poll() is not None else b""
            for pipe in (proc.stdout, proc.stderr):
                if pipe is not None:
                    pipe.close()
            parent.close()
            if root_fd >= 0:
                os.close(root_fd)
            tail = err.decode("utf-8", "replace").strip().splitlines()
            raise _BoxFailed(
                "bubblewrap could not set up the sandbox's namespaces here"
                + (f": {tail[-1]}" if tail else f" (exit status {proc.returncode})")
            )
        box = cls(proc, parent, root_fd)
        try:
            box._fill(workdir, dirs, files, main)
        except BaseException:
            _kill(proc)
            box.close()
            raise
        return box

    def _fill(self, src: Path, dirs: list[str], files: list[tuple[str, int]], main: bytes) -> None:
        """Copy the working folder in (nothing runs inside meanwhile but the waiting bootstrap)."""
        for rel in dirs:
            os.mkdir(rel, 0o755, dir_fd=self.root_fd)
        for rel, _size in files:
            try:
                fd = os.open(src / rel, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            except OSError:
                continue  # gone or replaced since it was listed: it stays behind, like a link
            with os.fdopen(fd, "rb") as fin:
                if not stat.S_ISREG(os.fstat(fin.fileno()).st_mode):
                    continue
                out = os.open(rel, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644,
                              dir_fd=self.root_fd)
                with os.fdopen(out, "wb") as fout:
                    shutil.copyfileobj(fin, fout)
        with os.fdopen(os.open("main.py", os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644,
                               dir_fd=self.root_fd), "wb") as fh:
            fh.write(main)

    def go(self) -> None:
        """Let the bootstrap set its rlimits and run the script."""
        try:
            self.channel.sendall(b"1")
        except OSError:
            pass  # the box is gone already; its exit status tells
        self.channel.close()

    def close(self) -> None:
        """Release the box's /sandbox (its memory is freed once no descriptor holds it)."""
        self.channel.close()
        if self.root_fd >= 0:
            os.close(self.root_fd)
            self.root_fd = -1
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()


def _snapshot(root_fd: int) -> dict[str, tuple[int, int]]:
    """Regular files under the box's /sandbox (relative path: size, mtime), links never followed."""
    out: dict[str, tuple[int, int]] = {}
    for dirpath, _dirs, filenames, dirfd in os.fwalk(".", dir_fd=root_fd, follow_symlinks=False):
        for name in filenames:
            try:
                st = os.stat(name, dir_fd=dirfd, follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                rel = os.path.normpath(os.path.join(dirpath, name))
                out[Path(rel).as_posix()] = (st.st_size, st.st_mtime_ns)
    return out


def _open_regular(root_fd: int, rel: str) -> int:
    """A descriptor of the regular file ``rel`` under ``root_fd``, each component opened without
    following a link (a link swapped in by a script still running cannot point the copy elsewhere)."""
    parts = rel.split("/")
    fd = os.dup(root_fd)
    try:
        for part in parts[:-1]:
            step = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = step
        found = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=fd)
    finally:
        os.close(fd)
    if not stat.S_ISREG(os.fstat(found).st_mode):
        os.close(found)
        raise OSError(f"{rel} is not a regular file")
    return found


def _sync_back(
    root_fd: int, workdir: Path, before: dict[str, tuple[int, int]], limits: SandboxLimits
) -> list[str]:
    """New or changed regular files into ``workdir``; never through a link, never outside it."""
    root = workdir.resolve()
    changed: list[str] = []
    for rel, stamp in sorted(_snapshot(root_fd).items()):
        if rel == "main.py" or before.get(rel) == stamp:
            continue
        if len(changed) >= limits.max_sync_files:
            break
        target = root / rel
        try:
            target.relative_to(root)
            _safe_parent(root, target)
            if target.is_symlink() or (target.exists() and not target.is_file()):
                continue
            with os.fdopen(_open_regular(root_fd, rel), "rb") as src:
                fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
                with os.fdopen(fd, "wb") as dst:
                    shutil.copyfileobj(src, dst)
        except (OSError, ValueError):
            continue
        changed.append(rel)
    return changed


def _safe_parent(root: Path, target: Path) -> None:
    """Create the parents of ``target`` under ``root``, refusing to pass through a symlink."""
    here = root
    for part in target.relative_to(root).parts[:-1]:
        here = here / part
        if here.is_symlink():
            raise ValueError(f"{here} is a link")
        here.mkdir(exist_ok=True)


# ---- running ------------------------------------------------------------------------------------


class _Capped:
    """The first ``keep`` bytes of a stream and how many came in all."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self.data = bytearray()
        self.total = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.keep - len(self.data)
        if room > 0:
            self.data += chunk[:room]

    def text(self, max_chars: int) -> str:
        text = self.data.decode("utf-8", "replace")
        dropped_bytes = self.total - len(self.data)
        if len(text) > max_chars:
            return text[:max_chars] + f"\n[truncated {len(text) - max_chars} chars]"
        if dropped_bytes > 0:
            return text + f"\n[truncated {dropped_bytes} bytes]"
        return text


def _pump(proc: subprocess.Popen[bytes], limits: SandboxLimits) -> tuple[_Capped, _Capped, bool, bool]:
    """Read both pipes until they close, the wall clock runs out or the output passes its cap."""
    if proc.stdout is None or proc.stderr is None:
        raise SandboxUnavailable("the sandboxed process was started without its output pipes")
    keep = limits.max_output_chars * 4 + 16  # UTF-8: at most four bytes a character
    streams = {proc.stdout.fileno(): _Capped(keep), proc.stderr.fileno(): _Capped(keep)}
    deadline = time.monotonic() + limits.wall_s
    timed_out = capped = False
    with selectors.DefaultSelector() as sel:
        for fd in streams:
            os.set_blocking(fd, False)
            sel.register(fd, selectors.EVENT_READ)
        while sel.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            for key, _ in sel.select(timeout=min(left, 1.0)):
                try:
                    chunk = os.read(key.fd, 65536)
                except BlockingIOError:
                    continue
                if not chunk:
                    sel.unregister(key.fd)
                    continue
                streams[key.fd].add(chunk)
            if sum(s.total for s in streams.values()) > limits.max_output_bytes:
                capped = True
                break
    return streams[proc.stdout.fileno()], streams[proc.stderr.fileno()], timed_out, capped


def _kill(proc: subprocess.Popen[bytes]) -> None:
    # The outer bwrap leads its own process group; its namespace init dies with it (--die-with-parent)
    # and takes every process of the PID namespace along.
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def run_python(
    code: str, workdir: Path, limits: SandboxLimits | None = None, *, sync_back: bool = True
) -> SandboxResult:
    """Run ``code`` as ``main.py`` inside a copy of ``workdir`` in the box, behind the OS boundary.

    Files the script creates or changes are copied back into ``workdir`` when ``sync_back`` (that is
    how an agent writes an XLSX deliverable); deletions are not, and nothing outside ``workdir``
    is ever touched. Raises :class:`SandboxUnavailable` when the boundary cannot be set up.
    """
    require_sandbox()
    bwrap = bwrap_binary()
    if bwrap is None:  # removed since the check above
        raise SandboxUnavailable("bubblewrap (`bwrap`) is no longer on PATH")
    limits = limits or SandboxLimits()
    try:
        box = _Box.start(bwrap, code, workdir, limits, timeout_s=max(60.0, limits.wall_s))
    except _BoxFailed as exc:
        raise SandboxUnavailable(str(exc)) from None
    proc = box.proc
    try:
        before = _snapshot(box.root_fd)
        box.go()
        out, err, timed_out, capped = _pump(proc, limits)
        if timed_out or capped:
            _kill(proc)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            _kill(proc)
            proc.wait()
        # The box is gone; its /sandbox lives on behind root_fd until box.close().
        changed = _sync_back(box.root_fd, workdir, before, limits) if sync_back else []
    finally:
        if proc.poll() is None:
            _kill(proc)
            proc.wait()
        box.close()
    stderr = err.text(limits.max_output_chars)
    if timed_out:
        stderr += f"\nkilled: the script ran past the {limits.wall_s:g} s time limit"
    elif capped:
        stderr += f"\nkilled: the script's output passed {limits.max_output_bytes} bytes"
    elif proc.returncode > 128:
        stderr += f"\nkilled by signal {proc.returncode - 128} (CPU or memory limit?)"
    return SandboxResult(
        exit_code=None if timed_out or capped else proc.returncode,
        stdout=out.text(limits.max_output_chars),
        stderr=stderr,
        timed_out=timed_out,
        network_isolation=ISOLATION,
        changed_files=changed,
        output_capped=capped,
    )

"""Hostile scripts against run_python's OS boundary (bubblewrap + seccomp + rlimits): none may escape.

Each test is an attack a malicious or confused agent could write. They run inside the real boundary:
when bwrap is missing, run_python raises SandboxUnavailable and every test here fails (never skips).
Each script prints what it managed; the assertions check the host, not only the script's word.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import stat
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphforge.agent import sandbox
from graphforge.agent.sandbox import SandboxLimits, SandboxUnavailable, run_python
from graphforge.agent.tools import ToolBox

LIBC = (
    "import ctypes, ctypes.util\n"
    "libc = ctypes.CDLL(ctypes.util.find_library('c') or 'libc.so.6', use_errno=True)\n"
)
READ_WITH_LIBC = (
    LIBC
    + """\
def libc_read(path):
    fd = libc.open(path.encode(), 0)
    if fd < 0:
        return 'refused errno=%d' % ctypes.get_errno()
    buf = ctypes.create_string_buffer(65536)
    n = libc.read(fd, buf, 65536)
    return buf.raw[:max(n, 0)].decode('latin-1')
"""
)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "ledger.csv").write_text("account,amount\nrent,1200\n", encoding="utf-8")
    return root


@pytest.fixture
def secret_file(tmp_path: Path) -> Path:
    """A credentials file like the managed Neo4j's: owner-only, outside the working copy."""
    home = tmp_path / "graphforge-home"
    home.mkdir()
    path = home / "credentials.json"
    path.write_text(json.dumps({"user": "neo4j", "password": "pw-" + secrets.token_hex(8)}), encoding="utf-8")
    path.chmod(0o600)
    return path


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP server on the host's loopback (where Neo4j listens) that must never be reached."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.5)
    hits: list[int] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            hits.append(1)
            conn.sendall(b"reached")
            conn.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join(timeout=5)
    server.close()
    assert not hits, "a sandboxed script connected to the host's loopback"


def _host_processes_named(comm: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() == comm:
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def test_ctypes_system_cannot_run_a_shell(workspace: Path, tmp_path: Path) -> None:
    planted = tmp_path / "pwned-by-system"
    code = LIBC + f"rc = libc.system(b'id > ids.txt; touch {planted}')\nprint('system returned', rc)\n"
    code += "import os\nprint('shell present', os.path.exists('/bin/sh'))\n"
    result = run_python(code, workspace)
    # glibc's system() reports a failed spawn as exit status 127 (32512); the shell is there to run.
    assert "system returned 32512" in result.stdout or "system returned -1" in result.stdout, result
    assert "shell present True" in result.stdout
    assert not planted.exists() and not (workspace / "ids.txt").exists()
    assert result.changed_files == []


def test_libc_cannot_read_credentials_or_shadow(workspace: Path, secret_file: Path) -> None:
    password = json.loads(secret_file.read_text())["password"]
    targets = [str(secret_file), "/etc/shadow", "/etc/passwd", str(Path.home() / ".bash_history")]
    managed = os.environ.get("GRAPHFORGE_HOME")
    if managed:
        targets.append(str(Path(managed) / "credentials.json"))
    code = READ_WITH_LIBC + f"for p in {targets!r}:\n    print(p, '->', libc_read(p)[:200])\n"
    code += "import os\nprint('py:', os.path.exists('/etc/shadow') and open('/etc/shadow').read()[:50])\n"
    result = run_python(code, workspace)
    assert result.ok, result.stderr
    assert password not in result.stdout and "root:" not in result.stdout
    assert result.stdout.count("refused errno=") == len(targets)


def test_parent_environment_cannot_be_read_through_proc(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "sk-" + secrets.token_hex(12)
    monkeypatch.setenv("GRAPHFORGE_LLM_API_KEY", key)
    code = (
        READ_WITH_LIBC
        + """\
import os
seen = {}
pids = ['self', str(os.getppid()), '1', str(os.getppid() - 1)]
for pid in pids + [p for p in os.listdir('/proc') if p.isdigit()]:
    seen[pid] = libc_read('/proc/%s/environ' % pid)
print(sorted(seen.items()))
print(dict(os.environ))
print('host pid of me:', os.getpid())
"""
    )
    result = run_python(code, workspace)
    assert result.ok, result.stderr
    assert key not in result.stdout and "GRAPHFORGE" not in result.stdout and "NEO4J" not in result.stdout
    # A fresh PID namespace: the script sees only its own few processes, not the host's.
    assert "host pid of me: " in result.stdout and int(result.stdout.rsplit(": ", 1)[1]) < 10


def test_file_operations_outside_the_copy_do_not_reach_the_host(workspace: Path, tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me", encoding="utf-8")
    victim.chmod(0o644)
    runtime_file = Path(sys.prefix) / f"planted-{secrets.token_hex(4)}"
    attempts = {
        "rename": f"os.rename({str(victim)!r}, {str(victim) + '.moved'!r})",
        "remove": f"os.remove({str(victim)!r})",
        "truncate": f"os.truncate({str(victim)!r}, 0)",
        "chmod": f"os.chmod({str(victim)!r}, 0o777)",
        "mkdir": f"os.mkdir({str(tmp_path / 'made-by-sandbox')!r})",
        "write-runtime": f"open({str(runtime_file)!r}, 'w').write('x')",
        "chmod-runtime": f"os.chmod({sys.executable!r}, 0o777)",
        "write-usr": "open('/usr/planted', 'w').write('x')",
        "libc-unlink": f"print(libc.unlink({str(victim).encode()!r}))",
    }
    for what, action in attempts.items():
        code = (
            LIBC
            + "import os\ntry:\n    "
            + action
            + "\n    print('DONE')\nexcept OSError as exc:\n    print('refused', exc)\n"
        )
        result = run_python(code, workspace)
        assert result.ok, (what, result.stderr)
        assert "DONE" not in result.stdout or what == "libc-unlink", (what, result.stdout)
    assert victim.read_text() == "keep me" and stat.S_IMODE(victim.stat().st_mode) == 0o644
    assert not (tmp_path / "victim.txt.moved").exists() and not (tmp_path / "made-by-sandbox").exists()
    assert not runtime_file.exists() and not Path("/usr/planted").exists()
    assert stat.S_IMODE(Path(sys.executable).resolve().stat().st_mode) != 0o777


def test_no_new_processes_multiprocessing_subprocess_fork(workspace: Path, tmp_path: Path) -> None:
    planted = tmp_path / "child-ran"
    scripts = {
        "multiprocessing": (
            "import multiprocessing as mp\n"
            f"def child():\n    open({str(planted)!r}, 'w').write('x'); open('child.txt', 'w').write('x')\n"
            "if __name__ == '__main__':\n    p = mp.get_context('spawn').Process(target=child)\n"
            "    p.start(); p.join(); print('child exit', p.exitcode)\n"
        ),
        "subprocess": "import subprocess\nprint(subprocess.run(['/bin/sh', '-c', 'echo ran > child.txt']))\n",
        "os.fork": "import os\nif os.fork() == 0:\n    open('child.txt', 'w').write('x')\n    os._exit(0)\n",
        "posix_spawn": "import os\nprint(os.posix_spawn('/bin/sh', ['sh', '-c', 'echo > child.txt'], {}))\n",
        "raw clone": LIBC
        + "print('clone', libc.syscall(56, 17, 0, 0, 0, 0))\nopen('child.txt','a').write('x')\n",
    }
    for what, code in scripts.items():
        result = run_python(code, workspace)
        assert "child.txt" not in result.changed_files or what == "raw clone", (what, result)
        if what == "raw clone":
            # The syscall answers -1 (EPERM); only the parent appends, once.
            assert "clone -1" in result.stdout, result.stdout
            assert (workspace / "child.txt").read_text() == "x"
            (workspace / "child.txt").unlink()
        else:
            assert not result.ok, what
            assert "Operation not permitted" in result.stderr or "PermissionError" in result.stderr, (
                what,
                result.stderr,
            )
    assert not planted.exists()


def test_fork_bomb_and_thread_bomb_are_contained(workspace: Path) -> None:
    fork_bomb = (
        LIBC
        + "ok = 0\nfor _ in range(2000):\n    if libc.fork() >= 0:\n        ok += 1\nprint('forks', ok)\n"
    )
    result = run_python(fork_bomb, workspace)
    assert result.ok and "forks 0" in result.stdout, result
    thread_bomb = (
        "import threading, time\nn = 0\ntry:\n    for _ in range(20000):\n"
        "        threading.Thread(target=time.sleep, args=(30,), daemon=True).start(); n += 1\n"
        "except (RuntimeError, MemoryError) as exc:\n    print('stopped', type(exc).__name__)\n"
        "print('threads', n, flush=True)\nimport os; os._exit(0)\n"
    )
    result = run_python(thread_bomb, workspace, SandboxLimits(memory_mb=512, wall_s=30))
    started = int(result.stdout.split("threads ")[1].split()[0]) if "threads " in result.stdout else 0
    assert "stopped" in result.stdout and started < 20000, result


def test_setsid_grandchild_and_sleepers_die_with_the_call(workspace: Path) -> None:
    marker = "gf" + secrets.token_hex(6)  # a comm name the script gives itself, to find it on the host
    code = (
        LIBC
        + f"""\
import os, sys, threading, time
libc.prctl(15, {marker.encode()!r}, 0, 0, 0)
try:
    if os.fork() == 0:
        os.setsid(); time.sleep(120)
except OSError as exc:
    print('fork refused:', exc, flush=True)
pid = libc.fork()  # below Python's audit hooks: only the kernel can refuse it
if pid == 0:
    libc.setsid(); time.sleep(120); os._exit(0)
print('libc fork', pid, flush=True)
for _ in range(4):
    threading.Thread(target=time.sleep, args=(120,)).start()
print('sleeping', flush=True)
time.sleep(120)
"""
    )
    # 10 s, not 3: the clock starts before bwrap and Python start; the script sleeps 120 s either way.
    result = run_python(code, workspace, SandboxLimits(wall_s=10))
    assert result.timed_out and "fork refused" in result.stdout and "sleeping" in result.stdout
    assert "libc fork -1" in result.stdout
    deadline = time.monotonic() + 10  # the kernel tears the namespace down asynchronously
    while _host_processes_named(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _host_processes_named(marker) == []


def test_print_in_a_loop_is_capped_and_killed(workspace: Path) -> None:
    limits = SandboxLimits(max_output_chars=1000, max_output_bytes=2_000_000, wall_s=60)
    result = run_python("import sys\nwhile True:\n    sys.stdout.write('x' * 4096)\n", workspace, limits)
    assert result.output_capped and not result.ok and not result.timed_out
    assert "output passed 2000000 bytes" in result.stderr
    assert len(result.stdout) <= 1000 + 100 and "[truncated" in result.stdout
    # stderr floods are held the same way
    result = run_python("import sys\nwhile True:\n    sys.stderr.write('y' * 4096)\n", workspace, limits)
    assert result.output_capped and len(result.stderr) < 1000 + 200


def test_network_is_unreachable_even_below_the_socket_module(workspace: Path, listener: int) -> None:
    ports = [listener, int(os.environ.get("GRAPHFORGE_BOLT_PORT", "7687"))]
    code = (
        LIBC
        + f"""\
import _socket, socket
for port in {ports!r}:
    for fam in (_socket.AF_INET, _socket.AF_INET6):
        try:
            s = _socket.socket(fam, _socket.SOCK_STREAM)
            s.settimeout(2)
            s.connect(('127.0.0.1' if fam == _socket.AF_INET else '::1', port))
            print('CONNECTED', port, s.recv(16))
        except OSError as exc:
            print('refused', port, exc)
print('raw socket', libc.socket(2, 1, 0), ctypes.get_errno())
print('netlink', libc.socket(16, 3, 0))
try:
    print(socket.getaddrinfo('localhost', 80))
except OSError as exc:
    print('dns refused', exc)
"""
    )
    result = run_python(code, workspace)
    assert result.ok, result.stderr
    assert "CONNECTED" not in result.stdout and "reached" not in result.stdout
    assert "raw socket -1" in result.stdout and "netlink -1" in result.stdout


def test_no_privilege_inside_and_no_way_to_regain_it(workspace: Path) -> None:
    code = (
        LIBC
        + """\
import os
print('uid', os.getuid(), os.geteuid(), os.getgid())
print('caps', [l for l in open('/proc/self/status') if l.startswith('CapEff')][0].split()[1])
print('unshare', libc.unshare(0x10000000))
print('mount', libc.mount(b'none', b'/tmp', b'tmpfs', 0, None))
print('ptrace', libc.ptrace(16, 1, 0, 0))
try:
    os.setuid(0); print('setuid ok')
except OSError as exc:
    print('setuid refused')
print(sorted(os.listdir('/')))
"""
    )
    result = run_python(code, workspace)
    assert result.ok, result.stderr
    assert "uid 65534 65534 65534" in result.stdout and "caps 0000000000000000" in result.stdout
    assert "unshare -1" in result.stdout and "mount -1" in result.stdout and "ptrace -1" in result.stdout
    assert "setuid refused" in result.stdout
    top = eval(result.stdout.strip().splitlines()[-1])  # the listing printed by the script
    assert "home" not in top and "var" not in top and "opt" not in top


def test_symlinks_written_by_the_script_are_not_followed_on_sync_back(
    workspace: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside-target.txt"
    outside.write_text("host file", encoding="utf-8")
    (workspace / "report.txt").symlink_to(outside)  # a link already in the working folder
    code = f"import os\nos.symlink({str(outside)!r}, 'evil.txt')\nopen('report2.txt', 'w').write('fine')\n"
    code += "print(os.path.exists('report.txt'))\n"
    result = run_python(code, workspace)
    assert result.ok and result.stdout.strip() == "False"  # the link was not copied in
    assert result.changed_files == ["report2.txt"] and not (workspace / "evil.txt").exists()
    assert outside.read_text() == "host file"


def test_memory_and_file_size_limits(workspace: Path) -> None:
    result = run_python(
        "b = bytearray(2 * 1024 ** 3)\nprint('allocated')\n", workspace, SandboxLimits(memory_mb=512)
    )
    assert not result.ok and "allocated" not in result.stdout
    result = run_python(
        "open('big.bin', 'wb').write(b'0' * (3 * 1024 * 1024))\n", workspace, SandboxLimits(max_file_mb=1)
    )
    assert not result.ok and ("File too large" in result.stderr or "killed by signal" in result.stderr)
    assert not (workspace / "big.bin").exists() or (workspace / "big.bin").stat().st_size <= 1024 * 1024


def test_without_bwrap_no_code_runs(workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    planted = tmp_path / "ran-unsandboxed"
    monkeypatch.setenv("PATH", str(empty))
    sandbox.sandbox_problem.cache_clear()
    try:
        with pytest.raises(SandboxUnavailable, match="bubblewrap"):
            run_python(f"open({str(planted)!r}, 'w').write('x')", workspace)
        with pytest.raises(SandboxUnavailable):
            ToolBox(workspace)  # the agent loop's tool box refuses to start
    finally:
        monkeypatch.undo()
        sandbox.sandbox_problem.cache_clear()
    assert not planted.exists()
    assert sandbox.sandbox_problem() is None  # and with bwrap back on PATH the boundary is there

"""The sandbox's writable space is /sandbox and /tmp alone, bounded, and the box runs wherever Python lives.

Like test_sandbox_hostile.py these run inside the real boundary and fail (never skip) without bwrap.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
import venv
from pathlib import Path

from graphforge.agent.sandbox import SandboxLimits, run_python

REPO = Path(__file__).resolve().parents[2]


def _shmem_kib() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("Shmem:"):
            return int(line.split()[1])
    raise AssertionError("no Shmem line in /proc/meminfo")


def test_only_sandbox_and_tmp_are_writable(tmp_path: Path) -> None:
    work = tmp_path / "ws"
    work.mkdir()
    # Every folder above the checkout and the runtime exists inside (as mount points) and must refuse.
    above = sorted({str(p) for base in (REPO, Path(sys.prefix)) for p in base.parents} | {"/"})
    targets = [*above, "/etc", "/root", "/usr", "/dev", "/dev/shm", "/proc", str(Path(sys.prefix)),
               "/sandbox", "/tmp"]
    code = (
        "import json, os\nout = {}\n"
        f"for d in {targets!r}:\n"
        "    try:\n"
        "        with open(os.path.join(d, 'gf-probe.txt'), 'w') as fh:\n"
        "            fh.write('x')\n"
        "        out[d] = 'written'\n"
        "    except OSError as exc:\n"
        "        out[d] = exc.strerror\n"
        "print(json.dumps(out))\n"
    )
    result = run_python(code, work, sync_back=False)
    assert result.ok, result.stderr
    outcome = json.loads(result.stdout)
    written = sorted(d for d, what in outcome.items() if what == "written")
    # A checkout or runtime under /tmp shows its folders inside the box's own /tmp (bounded, never the
    # host's): writable there, like any other path under /tmp, and nothing reaches the host.
    assert {"/sandbox", "/tmp"} <= set(written), outcome
    assert all(d in ("/sandbox", "/tmp") or d.startswith("/tmp/") for d in written), outcome
    assert not any((Path(d) / "gf-probe.txt").exists() for d in written if d != "/sandbox"), outcome


def test_writes_past_the_bound_fail_and_host_shared_memory_stays_flat(tmp_path: Path) -> None:
    work = tmp_path / "ws"
    work.mkdir()
    (work / "input.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    limits = SandboxLimits(write_mb=64, max_file_mb=16, wall_s=60)
    # Try to put 768 MiB into the box: in /tmp, in /sandbox and on the (read-only) root, 8 MiB a write.
    code = (
        "import json\nchunk = b'x' * (8 << 20)\nwritten = {}\n"
        "for where in ('/tmp', '/sandbox', '/'):\n"
        "    n = 0\n"
        "    for i in range(32):\n"
        "        try:\n"
        "            with open(f'{where.rstrip(\"/\")}/fill{i}.bin', 'wb') as fh:\n"
        "                fh.write(chunk)\n"
        "                fh.flush()\n"
        "            n += len(chunk)\n"
        "        except OSError as exc:\n"
        "            written[where + ':error'] = exc.strerror\n"
        "            break\n"
        "    written[where] = n\n"
        "print(json.dumps(written))\n"
    )
    peak = baseline = _shmem_kib()
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, _shmem_kib())
            time.sleep(0.01)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        result = run_python(code, work, limits, sync_back=False)
    finally:
        done.set()
        sampler.join(5)
    assert result.ok, result.stderr
    written = json.loads(result.stdout)
    assert written["/tmp:error"] == written["/sandbox:error"] == "No space left on device"
    assert written["/:error"] == "Read-only file system" and written["/"] == 0
    total_mib = (written["/tmp"] + written["/sandbox"]) / (1 << 20)
    assert total_mib <= 64, written
    # The host's shared memory rose by no more than the bound (plus a margin for other processes on a
    # shared machine), not by the 768 MiB the script tried to write; and it is released after the call.
    rise_mib = (peak - baseline) / 1024
    assert rise_mib < 64 + 48, f"host Shmem rose {rise_mib:.0f} MiB"
    assert (_shmem_kib() - baseline) / 1024 < 48


def test_sandbox_runs_from_a_virtual_environment_under_tmp_with_a_space(tmp_path: Path) -> None:
    # A venv under /tmp (the box mounts its own /tmp) in a folder with a space, seeing this checkout's
    # packages through a .pth file: the box must bind it and run, not refuse.
    env_dir = tmp_path / "clone with space" / ".venv"
    venv.EnvBuilder(with_pip=False, symlinks=True).create(env_dir)
    site_packages = next(env_dir.glob("lib/python3*/site-packages"))
    ours = [p for p in sys.path if p.endswith("site-packages")]
    (site_packages / "graphforge-test.pth").write_text(
        "import site; " + "; ".join(f"site.addsitedir({p!r})" for p in ours) + "\n" + str(REPO) + "\n",
        encoding="utf-8",
    )
    work = tmp_path / "clone with space" / "work"
    work.mkdir()
    (work / "in.txt").write_text("21", encoding="utf-8")
    driver = (
        "import sys\nfrom pathlib import Path\n"
        "from graphforge.agent.sandbox import run_python\n"
        "r = run_python(\"import sys\\nprint(int(open('in.txt').read()) * 2, sys.prefix)\\n"
        "open('out.txt', 'w').write('done')\\n\", Path(sys.argv[1]))\n"
        "print(r.exit_code, r.stdout.strip(), r.changed_files)\n"
        "print(r.stderr[-500:], file=sys.stderr)\n"
    )
    done = subprocess.run(
        [str(env_dir / "bin" / "python"), "-c", driver, str(work)],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"0 42 {env_dir} ['out.txt']", done.stdout + done.stderr
    assert (work / "out.txt").read_text() == "done"


def test_the_write_budget_stays_below_the_memory_limit() -> None:
    assert SandboxLimits().write_budget_mb == 256  # a quarter of the default 1 GiB
    assert SandboxLimits(memory_mb=128).write_budget_mb == 32
    assert SandboxLimits(write_mb=64, memory_mb=4096).write_budget_mb == 64

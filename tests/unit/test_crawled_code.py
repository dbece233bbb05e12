"""Code planted in a crawled folder never runs: not in the parser workers, not in the sandbox, not in the
model server's interpreter, not in `python -m graphforge` started from that folder. And a parser worker
whose loader went away exits without a traceback.

The planted modules (tests/support/planted.py) write a marker wherever they run; every test here starts
its processes from inside the planted folder and then finds no marker. (`graphforge load workspace .`
itself, against Neo4j, is in tests/integration/test_crawled_folder.py.)
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import subprocess
import sys
from pathlib import Path

import pytest

from graphforge.llm.server import isolated_module_argv
from graphforge.parsers.base import ParseLimits
from graphforge.parsers.pool import ParseTask, _serve
from tests.support.planted import markers_found, plant

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def crawled(tmp_path: Path) -> tuple[Path, Path]:
    """(a crawled folder with code planted at its top and in a sub-folder, the markers folder)."""
    folder, markers = tmp_path / "crawl", tmp_path / "markers"
    plant(folder, markers)
    plant(folder / "inner", markers)
    (folder / "notes.txt").write_text("Quarterly totals were reconciled.\n", encoding="utf-8")
    (folder / "inner" / "ledger.csv").write_text("account,amount\nrent,1200\n", encoding="utf-8")
    return folder, markers


def _env() -> dict[str, str]:
    """The caller's environment without the safe-path switch: GraphForge must not rely on it."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONSAFEPATH", "PYTHONPATH")}
    return env


PARSE_DRIVER = """\
import hashlib, sys
from pathlib import Path

if __name__ == "__main__":
    from graphforge.parsers.pool import ParseTask, parse_files

    files = sorted(p for p in Path(".").rglob("*") if p.is_file())
    tasks = [ParseTask(p.resolve(), hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_size)
             for p in files]
    results = dict(parse_files(tasks, jobs=2, timeout_s=120))
    print(len(results), sum(r.valid for r in results.values()))
"""


def test_parser_workers_import_nothing_from_the_current_directory(
    crawled: tuple[Path, Path], tmp_path: Path
) -> None:
    folder, markers = crawled
    # A script outside the folder, like the `graphforge` console script: only its own folder is on its
    # path, but multiprocessing starts its fork server with `python -c`, which adds the current one.
    driver = tmp_path / "driver.py"
    driver.write_text(PARSE_DRIVER, encoding="utf-8")
    done = subprocess.run([sys.executable, str(driver)], cwd=folder, env=_env(), capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    parsed, valid = map(int, done.stdout.split())
    assert parsed == len([p for p in folder.rglob("*") if p.is_file()]) and valid >= 2
    assert markers_found(markers, folder) == []
    assert "Traceback" not in done.stderr


def test_python_dash_m_graphforge_takes_the_current_directory_off_the_path(
    crawled: tuple[Path, Path],
) -> None:
    folder, markers = crawled
    done = subprocess.run([sys.executable, "-m", "graphforge", "--version"], cwd=folder, env=_env(),
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0 and done.stdout.startswith("graphforge "), done.stderr
    assert markers_found(markers, folder) == []


def test_the_sandbox_started_from_a_planted_folder_imports_nothing_from_it(
    crawled: tuple[Path, Path],
) -> None:
    folder, markers = crawled
    # The planted files are copied into the box too (they are part of the working folder): the bootstrap
    # and the script's own imports must still come from the runtime.
    code = (
        "import json, typing, zipfile, secrets, socket, runpy\n"
        "print(json.dumps({'token': len(secrets.token_hex(4)), 'zip': hasattr(zipfile, 'ZipFile')}))\n"
    )
    driver = (
        "import sys\nfrom pathlib import Path\nfrom graphforge.agent.sandbox import run_python\n"
        f"r = run_python({code!r}, Path('.'))\n"
        "print(r.exit_code, r.stdout.strip(), r.stderr[-300:])\n"
    )
    # -P: the driver stands in for the `graphforge` command, which does not import from here either.
    done = subprocess.run([sys.executable, "-P", "-c", driver], cwd=folder, env=_env(), capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith('0 {"token": 8, "zip": true}'), done.stdout
    assert markers_found(markers, folder) == []


def test_the_model_server_interpreter_is_isolated_with_an_explicit_path(crawled: tuple[Path, Path]) -> None:
    folder, markers = crawled
    argv = isolated_module_argv("json.tool")
    assert argv[:3] == [sys.executable, "-I", "-c"]
    path = json.loads(argv[4])
    assert path and all(os.path.isabs(p) for p in path) and "" not in path
    data = folder / "data.json"
    data.write_text('{"a": 1}', encoding="utf-8")
    # The same launcher `graphforge llm start` uses, started from inside the planted folder.
    done = subprocess.run([*argv, "--compact", str(data)], cwd=folder, env=_env(), capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0 and done.stdout.strip() == '{"a":1}', done.stderr
    assert markers_found(markers, folder) == []


# ---- a worker whose loader went away ----------------------------------------------------------------


def _worker(ctx: mp.context.BaseContext) -> tuple[mp.process.BaseProcess, object]:
    parent, child = ctx.Pipe()  # type: ignore[attr-defined]
    process = ctx.Process(target=_serve, args=(child, None, ParseLimits(), None), daemon=True)  # type: ignore[attr-defined]
    process.start()
    child.close()
    assert parent.poll(120) and parent.recv() == "ready"
    return process, parent


def test_a_worker_whose_loader_went_away_exits_quietly(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    ctx = mp.get_context("spawn")
    # Waiting for its next file when the loader's end closes: EOF.
    idle, conn = _worker(ctx)
    conn.close()  # type: ignore[attr-defined]
    idle.join(30)
    # Parsing a file when the loader's end closes: the answer meets a broken pipe.
    text = tmp_path / "big.txt"
    text.write_text("totals reconciled " * 200_000, encoding="utf-8")
    busy, conn = _worker(ctx)
    conn.send((0, ParseTask(text, "0" * 64, text.stat().st_size)))  # type: ignore[attr-defined]
    conn.close()  # type: ignore[attr-defined]
    busy.join(60)
    assert (idle.exitcode, busy.exitcode) == (0, 0)
    err = capfd.readouterr().err
    assert "Traceback" not in err and "BrokenPipeError" not in err and "EOFError" not in err, err

"""The run_python sandbox: time and memory limits, no network, its own copy of the workspace.

The escapes an attacker would try are in test_sandbox_hostile.py."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphforge.agent.sandbox import SandboxLimits, run_python
from graphforge.agent.tools import TOOL_SCHEMAS, ToolBox, schemas_writing, writing_tool


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "data").mkdir(parents=True)
    (root / "data" / "ledger.csv").write_text("account,amount\nrent,1200\npayroll,5300\n", encoding="utf-8")
    return root


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP server on the host's loopback that the sandboxed script must not reach."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(5)
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
                conn.sendall(b"reached")
                conn.close()
            except OSError:
                return

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    server.close()
    thread.join(timeout=6)


def test_script_reads_the_workspace_and_its_output_comes_back(workspace: Path) -> None:
    result = run_python(
        "import csv\nrows = list(csv.DictReader(open('data/ledger.csv')))\n"
        "total = sum(int(r['amount']) for r in rows)\nprint(total)\n"
        "open('total.txt', 'w').write(str(total))\n",
        workspace,
    )
    assert result.ok and result.stdout.strip() == "6500"
    assert result.changed_files == ["total.txt"] and (workspace / "total.txt").read_text() == "6500"


def test_script_works_on_its_own_copy(workspace: Path) -> None:
    result = run_python(
        "import os, shutil\nos.remove('data/ledger.csv')\nprint(os.getcwd())\n", workspace, sync_back=False
    )
    assert result.ok and (workspace / "data" / "ledger.csv").is_file()
    assert Path(result.stdout.strip()).resolve() != workspace.resolve()
    # Nothing written without sync_back reaches the working directory.
    run_python("open('stray.txt', 'w').write('x')", workspace, sync_back=False)
    assert not (workspace / "stray.txt").exists()


def test_time_limit_kills_the_script(workspace: Path) -> None:
    result = run_python(
        "import time\nwhile True:\n    time.sleep(0.05)\n", workspace, SandboxLimits(wall_s=1)
    )
    assert result.timed_out and result.exit_code is None and not result.ok
    assert "time limit" in result.stderr


def test_cpu_limit_backs_up_the_wall_clock(workspace: Path) -> None:
    result = run_python("while True:\n    pass\n", workspace, SandboxLimits(wall_s=1))
    assert not result.ok


def test_memory_limit_stops_a_large_allocation(workspace: Path) -> None:
    result = run_python(
        "block = bytearray(3 * 1024 ** 3)\nprint('allocated')\n", workspace, SandboxLimits(memory_mb=512)
    )
    assert not result.ok and "allocated" not in result.stdout
    assert "MemoryError" in result.stderr or "killed" in result.stderr


def test_no_network_through_the_socket_module(workspace: Path, listener: int) -> None:
    result = run_python(
        f"import socket\nsocket.create_connection(('127.0.0.1', {listener}), timeout=2)\n", workspace
    )
    assert not result.ok and result.network_isolation == "bwrap"
    assert "Address family not supported" in result.stderr or "Network is unreachable" in result.stderr


def test_files_outside_the_copy_stay_out_of_reach(workspace: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("sk-do-not-leak", encoding="utf-8")
    outside = tmp_path / "planted.txt"
    attempts = {
        "read": f"print(open({str(secret)!r}).read())",
        "write": f"open({str(outside)!r}, 'w').write('x')",
        "symlink": f"import os\nos.symlink({str(secret)!r}, 'link.txt')\nprint(open('link.txt').read())",
        "shell": f"import subprocess\nprint(subprocess.run(['cat', {str(secret)!r}], capture_output=True))",
        "os.system": f"import os\nos.system('cat {secret}')",
    }
    for what, code in attempts.items():
        result = run_python(code, workspace)
        assert "sk-do-not-leak" not in result.stdout + result.stderr, what
        # os.system reports the refused spawn as exit status 127 rather than raising
        assert not result.ok or what == "os.system", what
    assert not outside.exists()
    ok = run_python(
        "import numpy, openpyxl, tempfile\nwb = openpyxl.Workbook(); wb.save('out.xlsx')\n"
        "tempfile.NamedTemporaryFile().close()\nprint(open('data/ledger.csv').read().count(','))",
        workspace,
    )
    assert ok.ok and ok.stdout.strip() == "3" and ok.changed_files == ["out.xlsx"], ok.stderr


def test_environment_does_not_leak_into_the_script(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHFORGE_LLM_API_KEY", "sk-must-not-leak")
    result = run_python(
        "import os\nprint(sorted(k for k in os.environ if 'GRAPHFORGE' in k or 'KEY' in k))\n", workspace
    )
    assert result.ok and result.stdout.strip() == "[]"
    assert os.environ["GRAPHFORGE_LLM_API_KEY"] == "sk-must-not-leak"


def test_output_is_truncated_with_a_marker(workspace: Path) -> None:
    result = run_python("print('x' * 5000)\n", workspace, SandboxLimits(max_output_chars=100))
    assert result.ok and "[truncated" in result.stdout and len(result.stdout) < 200
    assert result.stdout.startswith("x" * 100)


def test_toolbox_keeps_paths_inside_the_working_directory(workspace: Path) -> None:
    tools = ToolBox(workspace)
    text, ok = tools.call("read_file", {"path": "../outside.txt"})
    assert not ok and text.startswith("ERROR") and "inside" in text
    text, ok = tools.call("write_file", {"path": "/etc/passwd", "content": "x"})
    assert not ok and text.startswith("ERROR")
    text, ok = tools.call("read_file", {"path": "data/ledger.csv"})
    assert ok and "payroll,5300" in text
    text, ok = tools.call("run_python", {"code": "1/0"})
    assert not ok and "ZeroDivisionError" in text
    text, ok = tools.call("nope", {})
    assert not ok and "unknown tool" in text
    text, ok = tools.call("read_file", '{"path": ')
    assert not ok and "not valid JSON" in text
    assert (tools.calls, tools.failures) == (6, 5)


def test_a_missing_path_is_answered_with_the_closest_real_ones(workspace: Path) -> None:
    (workspace / "data" / "budget_2024.xlsx").write_bytes(b"")
    tools = ToolBox(workspace)
    text, ok = tools.call("read_file", {"path": "data/ledgr.csv"})
    assert not ok and text.startswith("ERROR") and "'data/ledger.csv'" in text
    # By the name alone when the folder is wrong; the unrelated file is not offered.
    text, ok = tools.call("read_file", {"path": "reports/ledger.csv"})
    assert not ok and "'data/ledger.csv'" in text and "budget" not in text
    text, ok = tools.call("read_file", {"path": "minutes/agenda.docx"})
    assert not ok and "call list_files" in text and "ledger" not in text
    text, ok = tools.call("list_files", {"path": "dat"})
    assert not ok and "'data'" in text
    text, ok = tools.call("list_files", {"path": "data/ledger.csv"})
    assert not ok and "is a file" in text and "read_file" in text


def test_reading_a_deliverable_before_it_is_written_says_to_write_it(workspace: Path) -> None:
    tools = ToolBox(workspace, deliverables=("ledger_review.xlsx", "ledger_memo.md"))
    text, ok = tools.call("read_file", {"path": "ledger_review.xlsx"})
    assert not ok and "deliverable of this task" in text and "run_python" in text
    text, ok = tools.call("read_file", {"path": "out/ledger_memo.md"})
    assert not ok and "deliverable of this task" in text and "write it with write_file" in text
    # Any other missing file still gets the closest real paths.
    text, ok = tools.call("read_file", {"path": "ledger_summary.md"})
    assert not ok and "deliverable" not in text
    tools.call("write_file", {"path": "ledger_memo.md", "content": "# Memo\n"})
    text, ok = tools.call("read_file", {"path": "ledger_memo.md"})
    assert ok and "# Memo" in text


def test_read_file_parses_spreadsheets(workspace: Path) -> None:
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.title = "Ledger"
    sheet.append(["Account", "Amount"])
    sheet.append(["Rent", 1200])
    sheet.append(["Total", "=SUM(B2:B2)"])
    book.save(workspace / "ledger.xlsx")
    text, ok = ToolBox(workspace).call("read_file", {"path": "ledger.xlsx"})
    assert ok and "Ledger" in text and "Rent" in text and "1200" in text


def test_the_forced_write_schemas_fix_write_files_path_and_leave_the_shared_schemas_alone() -> None:
    assert [writing_tool(n) for n in ("a.md", "b.JSON", "c.xlsx", "d.Docx", "e.pptx", "f")] == [
        "write_file", "write_file", "run_python", "run_python", "run_python", "write_file"]
    forced = schemas_writing("memo.md")
    paths = {t["function"]["name"]: t["function"]["parameters"]["properties"].get("path") for t in forced}
    assert paths["write_file"] == {"type": "string", "enum": ["memo.md"]}
    assert paths["read_file"] == {"type": "string"}
    (shared,) = [t for t in TOOL_SCHEMAS if t["function"]["name"] == "write_file"]
    assert shared["function"]["parameters"]["properties"]["path"] == {"type": "string"}

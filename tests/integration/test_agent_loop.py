"""The built-in agent loop against the scripted chat server and a real Neo4j: tools that fail, a retried
500, a real XLSX deliverable, the trajectory stored, and a resumed run that skips finished samples."""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from openpyxl import load_workbook

from graphforge.agent import AgentConfig, run_rollout, trajectory_id
from graphforge.agent.loop import DROPPED
from graphforge.cli.main import main
from graphforge.context import StageContext
from graphforge.graphdb.graph import Graph
from graphforge.llm import chat_model
from graphforge.llm.text_tools import call_grammar, turn_grammar
from graphforge.models.benchmark import FinalWrite
from graphforge.models.spec import (
    AgentView,
    CriterionKind,
    CriterionSpec,
    DeliverableSpec,
    Polarity,
    TaskSpec,
)
from graphforge.models.trajectory import TrajectoryStatus
from graphforge.settings import GraphforgeSettings
from graphforge.stages import run_rollouts
from graphforge.stages.admit_trajectories import degenerate_reasons
from graphforge.stores.specs import save_spec
from graphforge.stores.trajectories import get_trajectories, save_trajectories
from tests.support.llm_server import RecordedRequest, Reply, ScriptedLLMServer, error, slow, text, tool_call

pytestmark = pytest.mark.neo4j

SPEC_ID = "ledger-total@v1"
STATEMENT = "Total the ledger amounts into summary.xlsx (sheet Summary, total in B2 as a SUM formula)."
XLSX_CODE = """\
import csv
from openpyxl import Workbook
rows = list(csv.DictReader(open('ledger.csv')))
book = Workbook()
sheet = book.active
sheet.title = 'Summary'
sheet.append(['Account', 'Amount'])
for r in rows:
    sheet.append([r['account'], int(r['amount'])])
sheet.append(['Total', f'=SUM(B2:B{len(rows) + 1})'])
book.save('summary.xlsx')
print('rows', len(rows))
"""


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "workspace"
    root.mkdir()
    (root / "ledger.csv").write_text("account,amount\nrent,1200\npayroll,5300\n", encoding="utf-8")
    (root / "memo.md").write_text("# Memo\nThe ledger is final.\n", encoding="utf-8")
    return root


def _view() -> AgentView:
    return AgentView(
        spec_id=SPEC_ID, statement=STATEMENT, files=["ledger.csv", "memo.md"], deliverables=["summary.xlsx"]
    )


def _script(server: ScriptedLLMServer) -> None:
    server.push(
        tool_call("list_files", {}),
        tool_call("read_file", {"path": "missing.csv"}),  # fails: no such file
        error(500, "upstream hiccup"),  # retried by the client
        tool_call("read_file", {"path": "ledger.csv"}),
        tool_call("run_python", {"code": "raise ValueError('wrong column')"}),  # fails: Python error
        tool_call("run_python", {"code": XLSX_CODE}),
        text("summary.xlsx is written: total 6500 as =SUM(B2:B3)."),
    )


def test_rollout_completes_with_failing_tools_and_a_retry(
    scripted_llm: ScriptedLLMServer,
    llm_settings: GraphforgeSettings,
    workspace: Path,
    tmp_path: Path,
    graph: Graph,
) -> None:
    llm = chat_model(llm_settings)
    assert llm is not None
    _script(scripted_llm)
    outcome = run_rollout(llm, _view(), workspace, tmp_path / "run", config=AgentConfig(max_steps=10))
    t = outcome.trajectory
    assert outcome.stop_reason == "finished" and t.status is TrajectoryStatus.MATERIALISED
    assert t.trajectory_id == trajectory_id(SPEC_ID, 0) and t.scaffold == "graphforge-loop"
    assert t.steps == 6 and (outcome.tool_calls, outcome.tool_failures) == (5, 2)
    assert len(scripted_llm.chat_requests) == 7  # six turns plus the retried 500

    tool_results = [m.content or "" for m in t.messages if m.role == "tool"]
    assert tool_results[1].startswith("ERROR") and "missing.csv" in tool_results[1]
    assert tool_results[3].startswith("ERROR") and "ValueError: wrong column" in tool_results[3]
    assert "rent,1200" in tool_results[2]

    [deliverable] = t.deliverables
    data = Path(deliverable.path).read_bytes()
    assert deliverable.name == "summary.xlsx" and deliverable.sha256 == hashlib.sha256(data).hexdigest()
    sheet = load_workbook(deliverable.path)["Summary"]
    assert sheet["B4"].value == "=SUM(B2:B3)" and sheet["A2"].value == "rent"

    # Tokens and cost are the sum of the calls; the messages are valid OpenAI chat messages.
    assert t.prompt_tokens == sum(r.input_tokens for r in outcome.records) > 0
    assert t.cost_usd == pytest.approx(sum(r.cost_usd for r in outcome.records))
    assert [m.role for m in t.messages[:3]] == ["system", "user", "assistant"]
    assert t.messages[2].tool_calls and t.messages[2].tool_calls[0].function.name == "list_files"
    assert t.messages[3].tool_call_id == t.messages[2].tool_calls[0].id

    save_trajectories(graph, [t])
    [stored] = get_trajectories(graph, [t.trajectory_id])
    assert stored.status is TrajectoryStatus.MATERIALISED and stored.deliverables == t.deliverables
    assert len(stored.messages) == len(t.messages)


def test_agent_sees_only_the_statement_and_the_files(
    scripted_llm: ScriptedLLMServer, llm_settings: GraphforgeSettings, workspace: Path, tmp_path: Path
) -> None:
    (workspace / "answer_key.json").write_text('{"total": 6500}', encoding="utf-8")  # not in the view
    llm = chat_model(llm_settings)
    assert llm is not None
    scripted_llm.push(
        tool_call("list_files", {}),
        tool_call("read_file", {"path": "answer_key.json"}),
        text("nothing to write"),
    )
    outcome = run_rollout(llm, _view(), workspace, tmp_path / "run")
    listing = outcome.trajectory.messages[3].content or ""
    assert "ledger.csv" in listing and "answer_key" not in listing
    assert outcome.trajectory.messages[5].content.startswith("ERROR")  # type: ignore[union-attr]
    first = json.dumps(scripted_llm.chat_requests[0].body["messages"])
    assert STATEMENT in first and "answer_key" not in first
    # Tools are offered with tool_choice "auto" said explicitly (a server may read its absence as "none").
    assert {r.body["tool_choice"] for r in scripted_llm.chat_requests} == {"auto"}
    # Nothing delivered: the rollout is recorded as failed, not materialised.
    assert outcome.trajectory.status is TrajectoryStatus.FAILED and outcome.stop_reason == "no_deliverables"


def _spec() -> TaskSpec:
    deliverable = DeliverableSpec(
        deliverable_id=f"{SPEC_ID}/summary.xlsx",
        name="summary.xlsx",
        format="xlsx",
        required_sheets=["Summary"],
        required_formulas=["Summary!B4:SUM"],
    )
    criterion = CriterionSpec(
        criterion_id=f"{SPEC_ID}/c1",
        polarity=Polarity.POSITIVE,
        kind=CriterionKind.VALUE,
        weight=1.0,
        requirement="Total of the ledger",
        target_deliverable="summary.xlsx",
        target_location="Summary!B4",
        expected_value=6500.0,
        computation="sum",
        verification="Recompute the sum of the ledger amounts.",
    )
    return TaskSpec(
        spec_id=SPEC_ID,
        base_id="ledger-total",
        version=1,
        workspace_id="ws-ledger",
        statement=STATEMENT,
        statement_hash="0" * 16,
        deliverables=[deliverable],
        criteria=[criterion],
        compiler="template",
    )


def _echo_agent(request: RecordedRequest) -> Reply:
    """Answers any rollout: write the workbook on the first turn, finish on the second."""
    if request.last_message.get("role") == "user":
        return tool_call("run_python", {"code": XLSX_CODE})
    return text("done")


def test_stage_runs_k_samples_concurrently_and_resumes(
    scripted_llm: ScriptedLLMServer,
    llm_settings: GraphforgeSettings,
    workspace: Path,
    graph: Graph,
    tmp_path: Path,
) -> None:
    save_spec(graph, _spec())
    ctx = StageContext(settings=llm_settings, graph=graph, run_id="test", out_dir=tmp_path / "out")
    scripted_llm.responder = _echo_agent
    params = run_rollouts.RunRolloutsParams(spec_id=SPEC_ID, n=3, concurrency=2, workspace_dir=workspace)
    result = run_rollouts.run(ctx, params)
    assert (result.materialised, result.failed, result.skipped) == (3, 0, [])
    assert result.llm_calls == 6 and result.cost_usd > 0
    ids = [trajectory_id(SPEC_ID, k) for k in range(3)]
    stored = get_trajectories(graph, ids)
    assert sorted(t.trajectory_id for t in stored) == ids
    assert all(t.spec_id == SPEC_ID and t.deliverables for t in stored)
    # Each sample sends its own seed, so K samples are K distinct requests (and cache entries).
    assert sorted({r.body["seed"] for r in scripted_llm.chat_requests}) == [0, 1, 2]

    sent = len(scripted_llm.chat_requests)
    again = run_rollouts.run(ctx, params.model_copy(update={"n": 4}))
    assert again.skipped == ids and [r.trajectory_id for r in again.rollouts] == [trajectory_id(SPEC_ID, 3)]
    assert len(scripted_llm.chat_requests) == sent + 2


def test_rollout_run_command(
    scripted_llm: ScriptedLLMServer,
    llm_settings: GraphforgeSettings,
    workspace: Path,
    graph: Graph,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    save_spec(graph, _spec())
    env = {
        "GRAPHFORGE_HOME": str(llm_settings.home),
        "GRAPHFORGE_BOLT_PORT": str(llm_settings.bolt_port),
        "GRAPHFORGE_HTTP_PORT": str(llm_settings.http_port),
        "GRAPHFORGE_LLM_BASE_URL": scripted_llm.url,
        "GRAPHFORGE_LLM_MODEL": str(llm_settings.llm_model),
        "GRAPHFORGE_LLM_API_KEY": "sk-cli-secret",
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    scripted_llm.responder = _echo_agent
    code = main(["rollout", "run", "--spec", SPEC_ID, "--n", "2", "--workspace", str(workspace), "--json"])
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert code == 0 and out["materialised"] == 2 and out["model"] == llm_settings.llm_model
    assert "sk-cli-secret" not in captured.out + captured.err
    assert scripted_llm.chat_requests[0].headers["Authorization"] == "Bearer sk-cli-secret"


def test_rollout_run_without_a_chat_model_is_a_config_error(
    graph: Graph,
    settings: GraphforgeSettings,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for key, value in (
        ("GRAPHFORGE_HOME", str(settings.home)),
        ("GRAPHFORGE_BOLT_PORT", str(settings.bolt_port)),
        ("GRAPHFORGE_HTTP_PORT", str(settings.http_port)),
    ):
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("GRAPHFORGE_LLM_BASE_URL", raising=False)
    monkeypatch.delenv("GRAPHFORGE_LLM_LOCAL", raising=False)
    save_spec(graph, _spec())
    assert main(["rollout", "run", "--spec", SPEC_ID]) == 1
    assert "GRAPHFORGE_LLM_BASE_URL" in capsys.readouterr().err


def _pager(path: str, deliverable: str) -> Callable[[RecordedRequest], Reply]:
    """An agent reading ``path`` page by page (following each page's pointer), then writing and stopping."""

    def answer(request: RecordedRequest) -> Reply:
        last = request.last_message
        if last.get("role") != "tool":
            return tool_call("read_file", {"path": path})
        content = str(last.get("content") or "")
        if match := re.search(r"offset=(\d+)", content.splitlines()[-1]):
            return tool_call("read_file", {"path": path, "offset": int(match.group(1))})
        if content.startswith("wrote "):
            return text("Done: the summary is written.")
        summary = "# Summary\nAll 1,600 entries read.\n"
        return tool_call("write_file", {"path": deliverable, "content": summary})

    return answer


def test_a_rollout_that_reads_a_100k_character_file_honestly_is_not_discarded_by_cleaning(
    scripted_llm: ScriptedLLMServer, llm_settings: GraphforgeSettings, tmp_path: Path
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    # A log whose first line starts with ERROR, and over 100,000 characters: five pages of 20,000.
    lines = [f"ERROR 2024-05-{i % 28 + 1:02d} job {i:05d} failed: disk quota exceeded on /srv/data{i % 7}"
             for i in range(1600)]
    body = "\n".join(lines) + "\n"
    assert len(body) > 100_000
    (root / "jobs.log").write_text(body, encoding="utf-8")
    view = AgentView(spec_id="log-summary@v1", statement="Summarise jobs.log into summary.md.",
                     files=["jobs.log"], deliverables=["summary.md"])
    scripted_llm.responder = _pager("jobs.log", "summary.md")
    llm = chat_model(llm_settings)
    assert llm is not None
    outcome = run_rollout(llm, view, root, tmp_path / "run", config=AgentConfig(max_steps=20))
    t = outcome.trajectory
    assert outcome.stop_reason == "finished" and t.status is TrajectoryStatus.MATERIALISED
    pages = [m.content or "" for m in t.messages if m.role == "tool"][:-1]
    assert len(pages) == 6 and outcome.tool_failures == 0  # ceil(100,800 / 20,000) pages
    # The pages, without their headers and pointers, are the file: nothing was lost by paging.
    read = "".join(p.split("\n", 1)[1].rsplit("\n[next page:", 1)[0] for p in pages)
    assert read == body
    assert degenerate_reasons(t) == []
    # The rule still catches real truncation: the same rollout with cut-short results is discarded.
    marked = "\n[truncated 500 chars]"
    cut = t.model_copy(update={"messages": [
        m.model_copy(update={"content": (m.content or "") + marked}) if m.role == "tool" else m
        for m in t.messages]})
    assert any(r.startswith("repeated truncation") for r in degenerate_reasons(cut))


def test_rollouts_of_many_specs_run_concurrently_up_to_the_configured_limit(
    scripted_llm: ScriptedLLMServer,
    llm_settings: GraphforgeSettings,
    workspace: Path,
    graph: Graph,
    tmp_path: Path,
) -> None:
    base = _spec()
    specs = [base.model_copy(update={
        "spec_id": f"ledger-total-{i}@v1", "base_id": f"ledger-total-{i}", "statement": f"{STATEMENT} (#{i})",
        "criteria": [c.model_copy(update={"criterion_id": f"ledger-total-{i}@v1/c1"}) for c in base.criteria],
    }) for i in range(3)]
    for spec in specs:
        save_spec(graph, spec)

    def writer(request: RecordedRequest) -> Reply:
        if request.last_message.get("role") == "user":
            return slow(tool_call("write_file", {"path": "summary.xlsx", "content": "total 6500"}), 0.3)
        return slow(text("done"), 0.3)

    scripted_llm.responder = writer
    settings = llm_settings.model_copy(update={"llm_concurrency": 3})
    ctx = StageContext(settings=settings, graph=graph, run_id="test", out_dir=tmp_path / "out")
    ids = [s.spec_id for s in specs]
    result = run_rollouts.run(ctx, run_rollouts.RunRolloutsParams(spec_ids=ids, n=2, workspace_dir=workspace))
    assert result.concurrency == 3 and result.spec_ids == ids
    assert (result.requested, result.materialised, result.failed) == (6, 6, 0)
    assert result.llm_calls == 12 and len(scripted_llm.chat_requests) == 12
    # Six rollouts of three specs overlapped, never more than GRAPHFORGE_LLM_CONCURRENCY calls at once.
    assert 1 < scripted_llm.max_in_flight <= 3
    stored = get_trajectories(graph, [trajectory_id(s, k) for s in ids for k in range(2)])
    assert len(stored) == 6 and all(t.status is TrajectoryStatus.MATERIALISED for t in stored)


def test_a_server_echoing_request_headers_leaks_no_part_of_the_key_into_logs_errors_or_the_graph(
    scripted_llm: ScriptedLLMServer,
    llm_settings: GraphforgeSettings,
    workspace: Path,
    graph: Graph,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    key = str(llm_settings.llm_api_key.get_secret_value()) if llm_settings.llm_api_key else ""
    assert len(key) > 20
    save_spec(graph, _spec())

    def echo(request: RecordedRequest) -> Reply:
        # A proxy that puts the request headers in its error body, the key across the 300-character cut.
        auth = request.headers.get("Authorization", "")
        status = 502 if len(scripted_llm.chat_requests) % 2 else 400
        return error(status, "x" * 250 + f" {auth} headers={json.dumps(request.headers)} part={auth[12:30]}")

    scripted_llm.responder = echo
    caplog.set_level(logging.DEBUG)
    ctx = StageContext(settings=llm_settings, graph=graph, run_id="test", out_dir=tmp_path / "out")
    params = run_rollouts.RunRolloutsParams(spec_id=SPEC_ID, n=2, workspace_dir=workspace)
    result = run_rollouts.run(ctx, params)
    assert result.failed == 2 and all(r.stop_reason.startswith("llm_error") for r in result.rollouts)
    assert scripted_llm.chat_requests[0].headers["Authorization"] == f"Bearer {key}"  # the key was sent
    pieces = {key[i : i + 6] for i in range(len(key) - 5)}
    stored = graph.driver.execute_query(
        "MATCH (n) UNWIND keys(n) AS k RETURN n[k] AS v", database_=graph.database).records
    texts = [json.dumps(r["v"], default=str) for r in stored]
    texts += [r.getMessage() for r in caplog.records] + [result.model_dump_json()]
    texts += [p.read_text(errors="replace") for p in (llm_settings.home / "runs").rglob("*.json")]
    assert any("llm_error" in t for t in texts)  # the failure is recorded...
    assert not {p for p in pieces for t in texts if p in t}  # ...without any piece of the key


def test_a_rollout_that_repeats_a_failing_call_stops(
    scripted_llm: ScriptedLLMServer, llm_settings: GraphforgeSettings, workspace: Path, tmp_path: Path,
) -> None:
    """The same failing call three times in a row ends the attempt; a different call in between does not."""
    llm = chat_model(llm_settings)
    assert llm is not None
    missing = tool_call("read_file", {"path": "summary.xlsx"})  # the deliverable it should write
    scripted_llm.push(missing, tool_call("list_files", {}), missing, missing, missing, missing,
                      tool_call("run_python", {"code": XLSX_CODE}), text("done"))
    outcome = run_rollout(llm, _view(), workspace, tmp_path / "run", config=AgentConfig(max_steps=10))
    assert outcome.stop_reason == "repeating"
    assert outcome.trajectory.steps == 5  # one failure, a good call, then three failures in a row
    assert (outcome.tool_calls, outcome.tool_failures) == (5, 4)
    assert outcome.trajectory.status is TrajectoryStatus.FAILED  # nothing was written
    # The loop's tools know the task's deliverables: the failed read says to write it instead.
    first = next(m.content or "" for m in outcome.trajectory.messages if m.role == "tool")
    assert "summary.xlsx is a deliverable of this task" in first and "run_python" in first


COUNTER = "open('n.txt', 'a').write('x'); print(len(open('n.txt').read()))"


def test_a_rollout_that_reads_the_same_page_again_and_again_stops(
    scripted_llm: ScriptedLLMServer, llm_settings: GraphforgeSettings, workspace: Path, tmp_path: Path,
) -> None:
    """A call that succeeds with the same result three times in a row ends the attempt; the same call
    answered differently each time (a counter it keeps in a file) does not."""
    llm = chat_model(llm_settings)
    assert llm is not None
    count = tool_call("run_python", {"code": COUNTER})
    read = tool_call("read_file", {"path": "memo.md"})
    scripted_llm.push(count, count, count, count, read, read, read, text("unreached"))
    outcome = run_rollout(llm, _view(), workspace, tmp_path / "run", config=AgentConfig(max_steps=10))
    assert outcome.stop_reason == "repeating"
    assert outcome.trajectory.steps == 7 and (outcome.tool_calls, outcome.tool_failures) == (7, 0)
    printed = [m.content or "" for m in outcome.trajectory.messages if m.role == "tool"][:4]
    assert len(set(printed)) == 4 and all(re.search(rf"(?m)^{n}$", p) for n, p in enumerate(printed, 1))


OVERFLOW = "Requested tokens (9120) exceed context window of 8192"


def test_a_conversation_past_the_served_context_drops_its_oldest_tool_results(
    scripted_llm: ScriptedLLMServer, llm_settings: GraphforgeSettings, workspace: Path, tmp_path: Path,
) -> None:
    """A 400 saying the prompt is past the context: the oldest tool result is sent as a note, one more
    per refusal, never the results of the last reply; the trajectory keeps every result as returned."""
    llm = chat_model(llm_settings)
    assert llm is not None
    scripted_llm.push(
        tool_call("list_files", {}),
        tool_call("read_file", {"path": "memo.md"}),
        tool_call("read_file", {"path": "ledger.csv"}),
        error(400, OVERFLOW),  # drops the listing
        error(400, OVERFLOW),  # drops the memo
        tool_call("run_python", {"code": XLSX_CODE}),
        text("summary.xlsx is written."),
    )
    outcome = run_rollout(llm, _view(), workspace, tmp_path / "run", config=AgentConfig(max_steps=10))
    assert outcome.stop_reason == "finished" and outcome.dropped_results == 2
    assert outcome.trajectory.status is TrajectoryStatus.MATERIALISED
    assert "2 tool results dropped" in outcome.trajectory.source

    def tool_texts(messages: list[dict[str, Any]]) -> list[str]:
        return [str(m.get("content")) for m in messages if m["role"] == "tool"]

    requests = scripted_llm.chat_requests
    assert len(requests) == 7
    after_first, after_second = tool_texts(requests[4].messages), tool_texts(requests[5].messages)
    assert after_first[0] == DROPPED and "The ledger is final" in after_first[1]
    assert after_second[:2] == [DROPPED, DROPPED] and "rent,1200" in after_second[2]
    later = tool_texts(requests[6].messages)  # the drops hold for the turns after
    assert later[:2] == [DROPPED, DROPPED] and "rent,1200" in later[2]
    kept = [m.content or "" for m in outcome.trajectory.messages if m.role == "tool"]
    assert "ledger.csv" in kept[0] and "The ledger is final" in kept[1] and DROPPED not in kept


def test_an_overflow_with_nothing_older_to_drop_ends_the_rollout(
    scripted_llm: ScriptedLLMServer, llm_settings: GraphforgeSettings, workspace: Path, tmp_path: Path,
) -> None:
    llm = chat_model(llm_settings)
    assert llm is not None
    scripted_llm.push(tool_call("read_file", {"path": "ledger.csv"}), error(400, OVERFLOW), text("unreached"))
    outcome = run_rollout(llm, _view(), workspace, tmp_path / "run", config=AgentConfig(max_steps=10))
    assert outcome.stop_reason.startswith("llm_error") and "exceed context window" in outcome.stop_reason
    assert outcome.dropped_results == 0 and len(scripted_llm.chat_requests) == 2


def test_a_call_that_cannot_be_read_is_answered_with_what_was_wrong(
    scripted_llm: ScriptedLLMServer, llm_settings: GraphforgeSettings, workspace: Path, tmp_path: Path,
) -> None:
    """A call block whose JSON never closes has no name to report; one whose arguments are broken names its
    tool. Neither ends the attempt."""
    llm = chat_model(llm_settings)
    assert llm is not None
    unclosed = '<tool_call>\n{"name": "run_python", "arguments": {"code": "print(1)\n</tool_call>'
    scripted_llm.push(text(unclosed), tool_call("read_file", '{"path": "memo.md'), text("done"))
    outcome = run_rollout(llm, _view(), workspace, tmp_path / "run", config=AgentConfig(max_steps=10))
    first, second = [m.content or "" for m in outcome.trajectory.messages if m.role == "tool"]
    assert first.startswith("ERROR: a tool call could not be read (") and "None" not in first
    assert second.startswith("ERROR: arguments of read_file are not valid JSON")
    assert outcome.trajectory.steps == 3 and outcome.tool_failures == 2


def test_a_rollout_that_ends_without_its_deliverable_is_told_to_write_it_in_a_forced_turn(
    scripted_llm: ScriptedLLMServer, llm_settings: GraphforgeSettings, workspace: Path, tmp_path: Path,
) -> None:
    """final_write tool_choice: after the model finishes in prose, each missing deliverable gets a user
    turn naming it and one more request whose tool_choice is the tool that writes it, with write_file's
    path fixed to the name; a deliverable already written gets no such turn."""
    llm = chat_model(llm_settings)
    assert llm is not None
    view = AgentView(spec_id=SPEC_ID, statement=STATEMENT, files=["ledger.csv", "memo.md"],
                     deliverables=["notes.md", "summary.xlsx", "total.md"])
    scripted_llm.push(
        tool_call("write_file", {"path": "total.md", "content": "Total 6500"}),
        text("The total is 6500."),
        tool_call("write_file", {"path": "notes.md", "content": "# Notes\nrent 1200, payroll 5300"}),
        tool_call("run_python", {"code": XLSX_CODE}),
    )
    config = AgentConfig(max_steps=10, final_write=FinalWrite.TOOL_CHOICE)
    outcome = run_rollout(llm, view, workspace, tmp_path / "run", config=config, expected=view.deliverables)
    assert outcome.stop_reason == "finished"
    assert outcome.told_to_write == ["notes.md", "summary.xlsx"]
    assert outcome.trajectory.steps == 4
    assert outcome.trajectory.source == "graphforge-loop: finished; then told to write notes.md, summary.xlsx"
    assert sorted(d.name for d in outcome.trajectory.deliverables) == ["notes.md", "summary.xlsx", "total.md"]
    requests = scripted_llm.chat_requests
    assert [r.body["tool_choice"] for r in requests] == [
        "auto", "auto",
        {"type": "function", "function": {"name": "write_file"}},
        {"type": "function", "function": {"name": "run_python"}},
    ]
    assert requests[2].last_message == {
        "role": "user",
        "content": "notes.md is not written yet. Write it now with write_file, from what you have read.",
    }
    # the statement's line about summary.xlsx is quoted; notes.md, which it does not name, gets the bare note
    assert requests[3].last_message["content"] == (
        f'summary.xlsx is not written yet. The task asks: "{STATEMENT}" Write it now with run_python '
        "(openpyxl, python-docx or python-pptx), from what you have read.")

    def path_schema(request: RecordedRequest) -> dict[str, Any]:
        (write,) = [t for t in request.body["tools"] if t["function"]["name"] == "write_file"]
        return dict(write["function"]["parameters"]["properties"]["path"])

    assert path_schema(requests[0]) == {"type": "string"}
    assert path_schema(requests[2]) == {"type": "string", "enum": ["notes.md"]}


def test_without_final_write_a_rollout_that_ends_in_prose_is_not_prompted(
    scripted_llm: ScriptedLLMServer, llm_settings: GraphforgeSettings, workspace: Path, tmp_path: Path,
) -> None:
    llm = chat_model(llm_settings)
    assert llm is not None
    scripted_llm.push(text("The total is 6500."), text("unreached"))
    view = _view()  # final_write off (the default): the expected deliverables are not asked for
    outcome = run_rollout(llm, view, workspace, tmp_path / "run", config=AgentConfig(max_steps=10),
                          expected=view.deliverables)
    assert outcome.stop_reason == "no_deliverables" and outcome.told_to_write == []
    assert len(scripted_llm.chat_requests) == 1


def test_a_grammar_forced_final_write_keeps_the_tool_listing_and_sends_the_call_grammar(
    scripted_llm: ScriptedLLMServer, llm_settings: GraphforgeSettings, workspace: Path, tmp_path: Path,
) -> None:
    """final_write grammar: the forced turn is an ordinary request (tool_choice auto, the tools as always)
    plus llama.cpp's ``grammar`` for one call in the text template's form; the reply, a call written as
    text, is read and carried out like any other."""
    llm = chat_model(llm_settings)
    assert llm is not None
    view = AgentView(spec_id=SPEC_ID, statement=STATEMENT, files=["ledger.csv"], deliverables=["notes.md"])
    written = ('<tool_call>\n{"name": "write_file", "arguments": {"path": "notes.md", "content": "# Notes"}}'
               "\n</tool_call>")
    scripted_llm.push(tool_call("read_file", {"path": "ledger.csv"}), text("Rent is 1200."), text(written))
    config = AgentConfig(max_steps=10, final_write=FinalWrite.GRAMMAR)
    outcome = run_rollout(llm, view, workspace, tmp_path / "run", config=config, expected=["notes.md"])
    assert outcome.told_to_write == ["notes.md"]
    assert (tmp_path / "run" / "deliverables" / "notes.md").read_text(encoding="utf-8") == "# Notes"
    first, _, forced = scripted_llm.chat_requests
    assert forced.body["tool_choice"] == "auto" and forced.body["tools"] == first.body["tools"]
    assert "grammar" not in first.body
    assert forced.body["grammar"].startswith(
        'root ::= "<tool_call>\\n{\\"name\\": \\"write_file\\", \\"arguments\\": '
        '{\\"path\\": \\"notes.md\\", \\"content\\": \\"" chars "\\"}}\\n</tool_call>"\n')


def test_a_json_deliverable_s_forced_write_is_held_to_a_json_document(
    scripted_llm: ScriptedLLMServer, llm_settings: GraphforgeSettings, workspace: Path, tmp_path: Path,
) -> None:
    """A ``.json`` deliverable's forced write sends the grammar whose string is a JSON document; a
    Markdown one's in the same rollout the plain string."""
    llm = chat_model(llm_settings)
    assert llm is not None
    view = AgentView(spec_id=SPEC_ID, statement=STATEMENT, files=["ledger.csv"],
                     deliverables=["records.json", "notes.md"])
    records = json.dumps({"path": "records.json", "content": '{"rent": 1200}'})
    scripted_llm.push(text("Rent is 1200."),
                      text(f'<tool_call>\n{{"name": "write_file", "arguments": {records}}}\n</tool_call>'),
                      text('<tool_call>\n{"name": "write_file", "arguments": {"path": "notes.md", '
                           '"content": "# Notes"}}\n</tool_call>'))
    config = AgentConfig(max_steps=10, final_write=FinalWrite.GRAMMAR)
    outcome = run_rollout(llm, view, workspace, tmp_path / "run", config=config,
                          expected=["records.json", "notes.md"])
    assert outcome.told_to_write == ["records.json", "notes.md"]
    assert json.loads((tmp_path / "run" / "deliverables" / "records.json").read_text(encoding="utf-8")) == {
        "rent": 1200}
    _, to_json, to_markdown = scripted_llm.chat_requests
    assert '\\"content\\": \\"" jdoc "\\"}}' in to_json.body["grammar"]
    assert "\njdoc ::= " in to_json.body["grammar"]
    assert '\\"content\\": \\"" chars "\\"}}' in to_markdown.body["grammar"]
    assert "jdoc" not in to_markdown.body["grammar"]


def test_held_turns_send_every_turn_the_grammar_of_the_task_s_files(
    scripted_llm: ScriptedLLMServer, llm_settings: GraphforgeSettings, workspace: Path, tmp_path: Path,
) -> None:
    """held_turns: each turn's request carries the grammar that holds read_file to the task's files (a
    file whose first page was read, past that page only); the forced final write still carries its own."""
    llm = chat_model(llm_settings)
    assert llm is not None
    view = AgentView(spec_id=SPEC_ID, statement=STATEMENT, files=["ledger.csv"], deliverables=["notes.md"])
    scripted_llm.push(tool_call("read_file", {"path": "ledger.csv"}), text("Rent is 1200."),
                      text('<tool_call>\n{"name": "write_file", "arguments": {"path": "notes.md", '
                           '"content": "# Notes"}}\n</tool_call>'))
    config = AgentConfig(max_steps=10, final_write=FinalWrite.GRAMMAR, held_turns=True, max_tokens=512)
    outcome = run_rollout(llm, view, workspace, tmp_path / "run", config=config, expected=["notes.md"])
    assert outcome.told_to_write == ["notes.md"] and outcome.tool_failures == 0
    first, second, forced = scripted_llm.chat_requests
    assert first.body["grammar"] == turn_grammar(["ledger.csv"], 512)
    assert second.body["grammar"] == turn_grammar(["ledger.csv"], 512, read={"ledger.csv"})
    assert 'fresh ::= "\\"ledger.csv\\""' in first.body["grammar"]
    assert "fresh ::=" not in second.body["grammar"]
    assert forced.body["grammar"] == call_grammar("write_file", {"path": "notes.md"}, "content", 512)


def test_the_forced_write_has_its_own_budget_and_its_grammar_is_bounded_by_it(
    scripted_llm: ScriptedLLMServer, llm_settings: GraphforgeSettings, workspace: Path, tmp_path: Path,
) -> None:
    """final_write_tokens: the turns keep max_tokens; the forced write asks for its own budget and its
    grammar lets the written string run to as many characters (a file longer than a turn's budget)."""
    llm = chat_model(llm_settings)
    assert llm is not None
    view = AgentView(spec_id=SPEC_ID, statement=STATEMENT, files=["ledger.csv"], deliverables=["notes.md"])
    content = "# Notes\n" + "Rent is 1200 a month. " * 60  # 1,328 characters: past a 256-token turn
    scripted_llm.push(text("Rent is 1200."), text(
        '<tool_call>\n' + json.dumps({"name": "write_file", "arguments": {"path": "notes.md",
                                                                       "content": content}})
        + '\n</tool_call>'))
    config = AgentConfig(max_steps=10, final_write=FinalWrite.GRAMMAR, max_tokens=256,
                         final_write_tokens=2048)
    outcome = run_rollout(llm, view, workspace, tmp_path / "run", config=config, expected=["notes.md"])
    assert outcome.told_to_write == ["notes.md"]
    assert (tmp_path / "run" / "deliverables" / "notes.md").read_text(encoding="utf-8") == content
    turn, forced = scripted_llm.chat_requests
    assert (turn.body["max_tokens"], forced.body["max_tokens"]) == (256, 2048)
    assert forced.body["grammar"] == call_grammar("write_file", {"path": "notes.md"}, "content", 2048)
    assert forced.body["grammar"] != call_grammar("write_file", {"path": "notes.md"}, "content", 256)

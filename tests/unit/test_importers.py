"""Trajectory importers: OpenAI-messages JSONL, Codex CLI sessions, OpenHands events, Claude Code."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

from graphforge.errors import SourceFormatError
from graphforge.models.trajectory import Trajectory
from loaders.trajectories import ReadResult, read_trajectories
from tests.support import trajectory_logs as logs

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "trajectories"
CODEX = FIXTURES / "codex-rollout-2025-09-14T10-02-00.jsonl"
OPENHANDS = FIXTURES / "openhands-trajectory.json"
CLAUDE = FIXTURES / "claude-code-session.jsonl"
OPENAI = FIXTURES / "openai_messages.jsonl"


def _assert_valid_chat(t: Trajectory) -> None:
    """Every tool call is answered by a tool message with its id, after its assistant turn."""
    open_calls: set[str] = set()
    for m in t.messages:
        if m.role == "assistant":
            assert not open_calls, f"unanswered calls {open_calls} before a new assistant turn"
            open_calls = {c.id for c in m.tool_calls or []}
            for c in m.tool_calls or []:
                json.loads(c.function.arguments)
        elif m.role == "tool":
            assert m.tool_call_id in open_calls
            open_calls.discard(m.tool_call_id)
    assert t.steps == sum(m.role == "assistant" for m in t.messages)


def test_openai_messages_lines_become_trajectories() -> None:
    result = read_trajectories(OPENAI, "openai")
    first, second = result.trajectories
    assert first.trajectory_id == "openai-messages:recon-001" and first.spec_id == "recon-q3@v1"
    assert (first.model, first.prompt_tokens, first.completion_tokens) == ("qwen3-32b", 1830, 412)
    assert first.tools[0]["function"]["name"] == "read_file"
    assert [c.id for c in first.messages[2].tool_calls or []] == ["call_a1", "call_a2"]
    assert first.messages[1].content == "Reconcile the Q3 ledger against the bank statement."
    [note] = first.deliverables
    assert note.sha256 == hashlib.sha256((FIXTURES / "recon_note.md").read_bytes()).hexdigest()
    assert second.messages[0].role == "system"  # "developer" is the new name of the system role
    assert second.trajectory_id.startswith("openai-messages:")
    for t in result.trajectories:
        _assert_valid_chat(t)


def test_openai_messages_bad_lines_are_reported_with_their_line() -> None:
    issues = read_trajectories(OPENAI, "openai").issues
    where = {(Path(i.file).name, i.line) for i in issues}
    assert ("openai_messages.jsonl", 2) in where  # unknown role inside an otherwise good line
    assert ("openai_messages.jsonl", 3) in where  # truncated JSON
    assert ("openai_messages.jsonl", 4) in where  # no messages
    assert any("not JSON" in i.problem for i in issues)


def test_codex_session_is_one_trajectory() -> None:
    result = read_trajectories(CODEX, "codex")
    [t] = result.trajectories
    assert t.trajectory_id == "codex:0199a1b2-7c3d-7e40-9a51-2f6d8e0c4b17" and t.scaffold == "codex"
    assert (t.model, t.prompt_tokens, t.completion_tokens) == ("gpt-5-codex", 9120, 611)
    assert t.source.startswith("import:codex@0.36.0")
    calls = [c.function.name for m in t.messages for c in m.tool_calls or []]
    assert calls == ["shell", "shell", "apply_patch"]
    outputs = [m.content or "" for m in t.messages if m.role == "tool"]
    assert outputs[0].startswith("item,amount")  # the JSON wrapper around shell output is removed
    assert outputs[1].startswith("ERROR: exit code 2")  # a failed command is marked as a failed tool call
    assert t.messages[-1].content == "total.txt now holds 100.40 (paper 12.40 + toner 88.00)."
    _assert_valid_chat(t)
    assert {(i.line, i.problem.split(";")[0]) for i in result.issues} == {
        (14, "unknown record type 'hologram'"),
        (15, "not JSON (Expecting ',' delimiter at column 97)"),  # where the line breaks off
    }


def test_codex_legacy_layout_is_read(tmp_path: Path) -> None:
    legacy = tmp_path / "rollout-old.jsonl"
    legacy.write_text(
        "\n".join(
            json.dumps(r)
            for r in [
                {"id": "old-session", "timestamp": "2025-05-01T10:00:00Z", "instructions": None},
                {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": "list files"}],
                },
                {"record_type": "state"},
                {
                    "type": "function_call",
                    "name": "shell",
                    "arguments": '{"command": ["ls"]}',
                    "call_id": "c1",
                },
                {
                    "type": "function_call_output",
                    "call_id": "c1",
                    "output": {"content": "a.txt", "success": True},
                },
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": "One file."}],
                },
            ]
        )
        + "\n"
    )
    [t] = read_trajectories(legacy, "codex").trajectories
    assert t.trajectory_id == "codex:old-session" and [m.role for m in t.messages] == [
        "user",
        "assistant",
        "tool",
        "assistant",
    ]


def test_openhands_events_group_calls_per_model_response() -> None:
    result = read_trajectories(OPENHANDS, "openhands")
    [t] = result.trajectories
    assert t.model == "litellm_proxy/claude-sonnet-4" and t.tools[0]["function"]["name"] == "execute_bash"
    assert (t.prompt_tokens, t.completion_tokens) == (2400 + 2900 + 3300 + 3500, 60 + 95 + 40 + 30)
    two_calls = [m for m in t.messages if m.role == "assistant" and len(m.tool_calls or []) == 2]
    assert [c.function.name for c in two_calls[0].tool_calls or []] == ["str_replace_editor", "execute_bash"]
    assert json.loads((two_calls[0].tool_calls or [])[0].function.arguments) == {
        "command": "view",
        "path": "/workspace/report.md",
    }  # exact model arguments, not OpenHands' args
    first_call = next(m for m in t.messages if m.tool_calls)
    assert first_call.content == "Let me see what is in the workspace."  # the thought rides on the turn
    failed = [
        m.content or "" for m in t.messages if m.role == "tool" and (m.content or "").startswith("ERROR")
    ]
    assert len(failed) == 1 and "missing.py" in failed[0]
    assert t.messages[-1].content == "Report checked."  # finish closes the conversation as text
    assert not any("recall" in (m.content or "") for m in t.messages)
    _assert_valid_chat(t)
    [issue] = result.issues
    assert issue.record == "event 13 (id=13)" and "teleport" in issue.problem


def test_claude_code_transcript_follows_the_main_branch() -> None:
    result = read_trajectories(CLAUDE, "claude-code")
    [t] = result.trajectories
    assert t.trajectory_id == "claude-code:5b0d2e8c-3f41-4c1a-9e77-0a6c1d2b9f30"
    assert t.model == "claude-sonnet-4-5-20250929" and t.source.startswith("import:claude-code@1.0.98")
    contents = " ".join(m.content or "" for m in t.messages)
    assert "Draft that the user rewound" not in contents and "sub-agent chatter" not in contents
    assert "Read the workbook first" not in contents  # thinking is not a message
    # The three lines of msg_01A (thinking, text, tool_use) are one assistant turn, priced once.
    assert t.messages[1].content == "I'll read the budget workbook." and t.messages[1].tool_calls
    assert t.prompt_tokens == (12 + 4100) + (8 + 350 + 4100) + 2 * (6 + 120 + 4450)
    assert t.completion_tokens == 180 + 95 + 60 + 60
    assert (t.messages[2].content or "").startswith("ERROR")  # is_error tool result
    assert [c.function.name for m in t.messages for c in m.tool_calls or []] == ["Read", "Bash", "Write"]
    _assert_valid_chat(t)
    problems = [str(i) for i in result.issues]
    assert any(":13:" in p and "not JSON" in p for p in problems)
    assert any(":14:" in p and "weather" in p for p in problems)
    assert any("abandoned branches" in p for p in problems) and any("sidechain" in p for p in problems)


def test_a_folder_imports_every_log_and_reports_bad_files(tmp_path: Path) -> None:
    shutil.copy(CODEX, tmp_path / "a.jsonl")
    (tmp_path / "nested").mkdir()
    shutil.copy(CODEX, tmp_path / "nested" / "copy.jsonl")  # same session id twice
    (tmp_path / "nested" / "empty.jsonl").write_text("\n")
    result = read_trajectories(tmp_path, "codex")
    assert len(result.files) == 3 and len(result.trajectories) == 1
    assert any("duplicate trajectory id" in i.problem for i in result.issues)
    by_name = {Path(o.file).name: o for o in result.files}
    assert by_name["empty.jsonl"].skipped is not None and by_name["copy.jsonl"].imported == 0


def test_unreadable_single_file_is_skipped_with_its_reason(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("[{")
    [outcome] = read_trajectories(broken, "openhands").files
    assert outcome.skipped is not None and "not valid JSON" in outcome.skipped
    assert outcome.line().startswith(f"skipped {broken}:")
    with pytest.raises(SourceFormatError, match="no such file"):
        read_trajectories(tmp_path / "absent.jsonl", "codex")


def test_deliverables_folder_is_attached(tmp_path: Path) -> None:
    (tmp_path / "variance.md").write_text("| Line | Variance |\n")
    [t] = read_trajectories(
        CLAUDE, "claude-code", spec_id="var@v1", deliverables_dir=tmp_path
    ).trajectories
    assert t.spec_id == "var@v1" and [d.name for d in t.deliverables] == ["variance.md"]


# --- Real formats as they come (issue 11): each file below is generated in the tool's own layout. ---


def _one(result: ReadResult) -> Trajectory:
    [outcome] = result.files
    assert outcome.skipped is None, outcome.line()
    [t] = result.trajectories
    _assert_valid_chat(t)
    return t


def test_swe_agent_traj_with_function_calls(tmp_path: Path) -> None:
    path = logs.write_swe_agent(tmp_path / "acme__totals-7.traj")
    t = _one(read_trajectories(path))  # --format auto
    assert t.scaffold == "swe-agent" and t.trajectory_id.startswith("swe-agent:acme__totals-7:")
    assert (t.model, t.prompt_tokens, t.completion_tokens, t.cost_usd) == (
        "claude-3-7-sonnet-20250219",
        48210,
        1630,
        0.42,
    )
    assert t.source == "import:swe-agent@1.0.1:acme__totals-7.traj"
    calls = [c for m in t.messages for c in m.tool_calls or []]
    assert len(calls) == 12 and {c.function.name for c in calls} == {"bash"}
    assert json.loads(calls[-1].function.arguments) == {"command": "submit"}
    assert [m.role for m in t.messages[:3]] == ["system", "user", "assistant"]
    assert "Demonstration" not in " ".join(m.content or "" for m in t.messages)  # examples are not the run
    assert (t.messages[3].content or "").startswith("OBSERVATION:")
    assert read_trajectories(path, "swe-agent").trajectories == [t]


def test_swe_agent_thought_action_history_keeps_commands_as_calls(tmp_path: Path) -> None:
    t = _one(read_trajectories(logs.write_swe_agent(tmp_path / "x.traj", function_calling=False)))
    calls = [c for m in t.messages for c in m.tool_calls or []]
    assert len(calls) == 12 and json.loads(calls[0].function.arguments)["command"].startswith(
        "sed -n '1,20p'"
    )
    results = [m for m in t.messages if m.role == "tool"]
    assert len(results) == 12 and results[-1].content == "OBSERVATION:\ndiff --git a/totals.py"


def test_a_folder_of_swe_agent_runs_is_imported_not_silently_empty(tmp_path: Path) -> None:
    for name in ("a__1", "b__2"):
        (tmp_path / name).mkdir()
        logs.write_swe_agent(tmp_path / name / f"{name}.traj")
        (tmp_path / name / f"{name}.patch").write_text("diff\n")
    for fmt in ("auto", "swe-agent"):
        result = read_trajectories(tmp_path, fmt)
        assert [o.imported for o in result.files] == [1, 1] and len(result.trajectories) == 2
    assert read_trajectories(tmp_path).ignored == {".patch": 2}  # counted, not silently dropped


def test_a_traj_read_as_jsonl_is_one_line_not_a_warning_per_line(tmp_path: Path) -> None:
    path = logs.write_swe_agent(tmp_path / "run.traj")
    assert path.read_text().count("\n") > 150
    for fmt in ("openai", "codex", "claude-code"):
        result = read_trajectories(path, fmt)
        [outcome] = result.files
        assert (
            outcome.skipped
            == f"looks like swe-agent, not {fmt} (use --format swe-agent or --format auto)"
        )
        assert result.issues == [] and "\n" not in outcome.line()
    pretty = tmp_path / "pretty.jsonl"  # a JSON document under a JSONL name
    pretty.write_text(json.dumps({"rows": list(range(200))}, indent=2))
    [outcome] = read_trajectories(pretty, "codex").files
    assert outcome.skipped is not None and "one JSON document over several lines" in outcome.skipped


def test_openai_messages_as_json_array_object_and_message_lines(tmp_path: Path) -> None:
    array = logs.write_openai_array(tmp_path / "conversation.json")
    for fmt in ("auto", "openai"):
        result = read_trajectories(array, fmt)
        t = _one(result)
        assert result.issues == [] and t.scaffold == "openai-messages"
        assert [c.function.name for m in t.messages for c in m.tool_calls or []] == [
            "read_file",
            "write_file",
        ]
    obj = _one(read_trajectories(logs.write_openai_object(tmp_path / "object.json")))
    assert (obj.trajectory_id, obj.model, obj.prompt_tokens) == (
        "openai-messages:recon-object",
        "gpt-4.1",
        900,
    )
    lines = _one(read_trajectories(logs.write_openai_message_lines(tmp_path / "lines.jsonl")))
    assert [m.model_dump() for m in lines.messages] == [m.model_dump() for m in t.messages]
    # In a folder under --format openai the .json files are read too (they were silently skipped).
    folder = read_trajectories(tmp_path, "openai")
    assert [(Path(o.file).name, o.imported) for o in folder.files] == [
        ("conversation.json", 1),
        ("lines.jsonl", 0),
        ("object.json", 1),
    ]
    assert "duplicate trajectory id" in (folder.files[1].skipped or "")  # the same conversation twice


def test_tau_bench_and_tau2_results(tmp_path: Path) -> None:
    result = read_trajectories(logs.write_tau_bench(tmp_path / "tool-calling-gpt-4o-0.0_range_0-5.json"))
    assert [t.trajectory_id for t in result.trajectories] == [
        "tau-bench:tool-calling-gpt-4o-0.0_range_0-5:task3:trial0",
        "tau-bench:tool-calling-gpt-4o-0.0_range_0-5:task4:trial0",
    ]
    assert result.issues == [] and result.trajectories[0].messages[0].role == "system"
    for t in result.trajectories:
        _assert_valid_chat(t)
    tau2 = _one(read_trajectories(logs.write_tau2(tmp_path / "telecom.json"), "tau-bench"))
    assert (tau2.trajectory_id, tau2.model, tau2.cost_usd) == ("tau-bench:sim-0001", "gpt-4.1-mini", 0.003)
    [call] = [c for m in tau2.messages for c in m.tool_calls or []]
    assert call.id == "t2_1" and json.loads(call.function.arguments) == {"phone": "555-0100"}
    user_text = " ".join(m.content or "" for m in tau2.messages if m.role == "user")
    assert "toggle_airplane_mode" in user_text and "Airplane mode is off." in user_text


def test_openhands_evaluation_output_jsonl(tmp_path: Path) -> None:
    path = logs.write_openhands_output(tmp_path / "output.jsonl")
    for fmt in ("auto", "openhands"):
        result = read_trajectories(path, fmt)
        new, old = result.trajectories
        assert new.trajectory_id.startswith("openhands:acme__ledger-101:") and new.model.endswith(
            "claude-sonnet-4"
        )
        assert (new.prompt_tokens, new.cost_usd) == (2100, 0.021)
        assert new.messages[1].content == logs.TASK and new.tools[0]["function"]["name"] == "execute_bash"
        assert old.model == "gpt-4o" and (old.prompt_tokens, old.completion_tokens) == (3000, 90)
        assert old.messages[0].content == logs.TASK  # the instruction, when no event carries it
        for t in (new, old):
            _assert_valid_chat(t)
    (tmp_path / "sub").mkdir()
    path.rename(tmp_path / "sub" / "output.jsonl")
    assert len(read_trajectories(tmp_path).trajectories) == 2  # found in a folder too


def test_openhands_events_folder(tmp_path: Path) -> None:
    folder = logs.write_openhands_events_folder(tmp_path / "sessions" / "5f2c")
    for where in (folder, tmp_path):
        result = read_trajectories(where)
        t = _one(result)
        assert t.trajectory_id == "openhands:5f2c" and result.files[0].format == "openhands"
        assert [c.function.name for m in t.messages for c in m.tool_calls or []] == ["execute_bash"]


def test_warnings_are_summarised_per_file(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    good = CODEX.read_text()
    path.write_text(good + "".join(f'{{"broken": {i}\n' for i in range(300)) + '{"type": "hologram"}\n')
    [outcome] = read_trajectories(path).files
    assert outcome.imported == 1 and outcome.warnings == 303
    assert len(outcome.summary) <= 4 and "x301" in outcome.summary[0] and "\n" not in outcome.line()


def test_deep_nesting_is_refused_with_a_reason_never_a_crash(tmp_path: Path) -> None:
    (tmp_path / "brackets.json").write_text("[" * 200_000 + "]" * 200_000)
    (tmp_path / "objects.jsonl").write_text('{"a":' * 50_000 + "1" + "}" * 50_000 + "\n")
    nested: object = "deep"
    for _ in range(150):
        nested = {"content": nested}
    messages = logs.openai_messages()
    messages[1]["content"] = nested
    (tmp_path / "deep_content.json").write_text(json.dumps(messages))
    traj = logs.swe_agent_run()
    traj["replay_config"] = "[" * 100_000 + "]" * 100_000
    (tmp_path / "deep_config.traj").write_text(json.dumps(traj))
    result = read_trajectories(tmp_path)
    reasons = {Path(o.file).name: o.skipped or "" for o in result.files}
    assert "nested deeper than" in reasons["brackets.json"] and "nested" in reasons["deep_content.json"]
    assert "nested" in reasons["objects.jsonl"]
    assert reasons["deep_config.traj"] == ""  # the model name is lost, the run is not
    assert [t.model for t in result.trajectories] == ["unknown"]


def test_lone_surrogates_and_hostile_entries_in_a_folder(tmp_path: Path) -> None:
    messages = logs.openai_messages()
    messages[-1]["content"] = "done \ud800 here"
    (tmp_path / "surrogate.json").write_text(json.dumps(messages))  # json.dumps writes the \ud800 escape
    os.mkfifo(tmp_path / "pipe.jsonl")
    os.symlink(tmp_path / "loop_b.json", tmp_path / "loop_a.json")
    os.symlink(tmp_path / "loop_a.json", tmp_path / "loop_b.json")
    os.symlink("/etc/hostname", tmp_path / "outside.json")
    odd = os.fsencode(tmp_path) + b"/caf\xe9.json"
    with open(odd, "wb") as handle:
        handle.write(json.dumps(logs.openai_messages()).encode())
    result = read_trajectories(tmp_path)
    by_name = {Path(o.file).name: o for o in result.files}
    assert by_name["pipe.jsonl"].skipped == "not a regular file (FIFO, device or socket); not read"
    assert "loop" in (by_name["loop_a.json"].skipped or "") and "loop" in (
        by_name["loop_b.json"].skipped or ""
    )
    assert by_name["outside.json"].skipped == "link leads outside the folder; not read"
    assert by_name["caf\\xe9.json"].imported == 1  # the undecodable byte is shown, the file is read
    assert by_name["surrogate.json"].imported == 1
    [fixed] = [t for t in result.trajectories if "surrogate" in t.source]
    assert fixed.messages[-1].content == "done \ufffd here"
    json.dumps(result.model_dump(mode="json"), ensure_ascii=False).encode("utf-8")  # prints and stores


def test_deliverables_named_in_a_record_stay_in_the_logs_folder(tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("not for the graph")
    logs_dir = tmp_path / "logs"
    logs_dir.mkdir()
    (logs_dir / "recon.md").write_text("# Q3\n")
    record = {
        "id": "d1",
        "messages": logs.openai_messages(),
        "deliverables": ["recon.md", "../secret.txt", "/etc/hostname", "missing.md"],
    }
    (logs_dir / "run.jsonl").write_text(json.dumps(record) + "\n")
    result = read_trajectories(logs_dir / "run.jsonl")
    [t] = result.trajectories
    assert [d.name for d in t.deliverables] == ["recon.md"]
    problems = [i.problem for i in result.issues]
    assert sum("outside the log's folder" in p for p in problems) == 2 and any(
        "missing.md" in p for p in problems
    )


def test_a_broken_file_in_each_format_is_one_line_naming_it(tmp_path: Path) -> None:
    logs.cut(logs.write_swe_agent(tmp_path / "cut.traj"))
    logs.cut(logs.write_openai_array(tmp_path / "cut_messages.json"))
    logs.cut(logs.write_tau_bench(tmp_path / "cut_tau.json"))
    (tmp_path / "no_reply.json").write_text(json.dumps(logs.openai_messages()[:2]))
    output = logs.write_openhands_output(tmp_path / "output.jsonl")
    output.write_text("".join(line[:80] + "\n" for line in output.read_text().splitlines()))
    (tmp_path / "codex.jsonl").write_text(CODEX.read_text().splitlines()[0] + "\n")  # session_meta only
    (tmp_path / "claude.jsonl").write_text(CLAUDE.read_text().splitlines()[0] + "\n")
    (tmp_path / "notes.json").write_text('{"title": "not a log"}')
    (tmp_path / "empty.jsonl").write_text("")
    result = read_trajectories(tmp_path)
    assert result.trajectories == []
    assert len(result.files) == 9 and all(o.skipped for o in result.files)
    lines = sorted(o.line() for o in result.files)
    for line in lines:
        assert line.startswith(f"skipped {tmp_path}/") and "\n" not in line
    reasons = {Path(o.file).name: o.skipped for o in result.files}
    assert reasons["cut.traj"].startswith("not valid JSON (")
    assert reasons["no_reply.json"] == "nothing imported (no assistant message; skipped)"
    assert reasons["codex.jsonl"] == "nothing imported (no assistant turn in this session)"
    assert (
        reasons["notes.json"] == "a JSON object (keys 'title') that is no trajectory format graphforge reads"
    )
    assert reasons["empty.jsonl"] == "empty file"


def test_a_missing_deliverables_folder_is_refused_before_any_log_is_read(tmp_path: Path) -> None:
    with pytest.raises(SourceFormatError, match="--deliverables: no such folder"):
        read_trajectories(CLAUDE, "auto", deliverables_dir=tmp_path / "absent")


def test_sparse_giants_and_over_long_paths_are_refused_with_a_reason(tmp_path: Path) -> None:
    from loaders.trajectories.base import MAX_FILE_BYTES

    with open(tmp_path / "giant.jsonl", "wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)  # sparse: no disk used, but reading it would be
    logs.write_openai_array(tmp_path / "fine.json")
    fd = os.open(tmp_path, os.O_RDONLY)
    for _ in range(20):  # 20 x 240 characters: a path beyond PATH_MAX, built relative to each parent
        os.mkdir("d" * 240, dir_fd=fd)
        child = os.open("d" * 240, os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = child
    with os.fdopen(os.open("deep.json", os.O_WRONLY | os.O_CREAT, dir_fd=fd), "w") as handle:
        handle.write(json.dumps(logs.openai_messages()))
    os.close(fd)
    result = read_trajectories(tmp_path)
    reasons = {Path(o.file).name: o.skipped for o in result.files}
    assert (
        reasons["giant.jsonl"]
        == f"{MAX_FILE_BYTES + 1} bytes, over the {MAX_FILE_BYTES} byte limit for a log"
    )
    assert reasons["fine.json"] is None and len(result.trajectories) == 1
    assert any("File name too long" in (o.skipped or "") for o in result.files)

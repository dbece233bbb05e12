"""Trajectory importers: OpenAI-messages JSONL, Codex CLI sessions, OpenHands events, Claude Code."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from graphforge.errors import SourceFormatError
from graphforge.models.trajectory import Trajectory
from loaders.trajectories import TrajectoryFormat, read_trajectories

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
    result = read_trajectories(OPENAI, TrajectoryFormat.OPENAI)
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
    issues = read_trajectories(OPENAI, TrajectoryFormat.OPENAI).issues
    where = {(Path(i.file).name, i.line) for i in issues}
    assert ("openai_messages.jsonl", 2) in where  # unknown role inside an otherwise good line
    assert ("openai_messages.jsonl", 3) in where  # truncated JSON
    assert ("openai_messages.jsonl", 4) in where  # no messages
    assert any("not JSON" in i.problem for i in issues)


def test_codex_session_is_one_trajectory() -> None:
    result = read_trajectories(CODEX, TrajectoryFormat.CODEX)
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
    [t] = read_trajectories(legacy, TrajectoryFormat.CODEX).trajectories
    assert t.trajectory_id == "codex:old-session" and [m.role for m in t.messages] == [
        "user",
        "assistant",
        "tool",
        "assistant",
    ]


def test_openhands_events_group_calls_per_model_response() -> None:
    result = read_trajectories(OPENHANDS, TrajectoryFormat.OPENHANDS)
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
    result = read_trajectories(CLAUDE, TrajectoryFormat.CLAUDE_CODE)
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
    result = read_trajectories(tmp_path, TrajectoryFormat.CODEX)
    assert len(result.files) == 3 and len(result.trajectories) == 1
    assert any("duplicate trajectory id" in i.problem for i in result.issues)
    by_name = {Path(o.file).name: o for o in result.files}
    assert by_name["empty.jsonl"].skipped is not None and by_name["copy.jsonl"].imported == 0


def test_unreadable_single_file_is_skipped_with_its_reason(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("[{")
    [outcome] = read_trajectories(broken, TrajectoryFormat.OPENHANDS).files
    assert outcome.skipped is not None and "not valid JSON" in outcome.skipped
    assert outcome.line().startswith(f"skipped {broken}:")
    with pytest.raises(SourceFormatError, match="no such file"):
        read_trajectories(tmp_path / "absent.jsonl", TrajectoryFormat.CODEX)


def test_deliverables_folder_is_attached(tmp_path: Path) -> None:
    (tmp_path / "variance.md").write_text("| Line | Variance |\n")
    [t] = read_trajectories(
        CLAUDE, TrajectoryFormat.CLAUDE_CODE, spec_id="var@v1", deliverables_dir=tmp_path
    ).trajectories
    assert t.spec_id == "var@v1" and [d.name for d in t.deliverables] == ["variance.md"]

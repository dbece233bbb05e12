"""Attempts at benchmark tasks: ids, the agent's view of a task, deliverables found in the working folder.

An attempt is what one player produced for one task: files written (its deliverables), the closing text,
and the conversation when there is one. The judge sees a rendering of the deliverables, kept on the
Attempt node so that judging (and re-judging) needs only the graph.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections import Counter
from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage, SystemMessage

from graphforge.llm import OpenAICompatibleChatModel
from graphforge.models.base import Row, stable_hash
from graphforge.models.spec import AgentView
from graphforge.models.trajectory import DeliverableFile, Message

MAX_RENDERED = 40_000  # characters of rendered deliverables kept on an Attempt (the judge sees less)
MAX_PER_FILE = 16_000


class AttemptStatus(StrEnum):
    COMPLETED = "completed"  # the player finished (with or without deliverables): judged
    ERROR = "error"  # the endpoint failed or the source had nothing for the task: retried on resume


class AttemptRow(Row):
    attempt_id: str
    task_key: str
    benchmark: str
    task_id: str
    player: str
    scaffold: str
    model: str
    status: str
    stop_reason: str
    steps: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    llm_calls: int
    cached_calls: int
    prompt_hashes: list[str]
    final_text: str
    deliverables_json: str  # [DeliverableFile, ...]
    messages_json: str
    rendered: str  # what the judge reads: each deliverable's text, then the closing message
    has_output: bool  # at least one deliverable file or a closing text
    content_hash: str  # of the deliverables and closing text: a changed attempt is judged again
    run_dir: str
    source: str
    told_to_write: list[str] = []  # deliverables the player was told to write after it stopped (final write)
    # The agent settings a chat attempt ran with (turns, reply budget, page size, temperature, final write,
    # held turns), as JSON: runs that differ only in them stay comparable. Empty for imported and oracle runs.
    agent_json: str = ""


class PlayerRow(Row):
    name: str
    kind: str
    scaffold: str
    model: str
    endpoint: str | None
    system_prompt: str | None
    system_prompt_hash: str | None
    source: str | None


def attempt_id(task_key: str, player: str) -> str:
    """One attempt per task and player: re-runs resume it instead of adding another."""
    return f"{task_key}|{player}"


def task_view(task_key: str, prompt: str, files: Sequence[str]) -> AgentView:
    """The agent's view of a benchmark task: the prompt and the reference files, nothing else.

    Benchmark tasks name no deliverable files the way compiled specs do; the prompt says what to
    write, and every file the agent writes is collected afterwards.
    """
    return AgentView(spec_id=task_key, statement=prompt, files=sorted(set(files)), deliverables=[])


def file_hashes(root: Path) -> dict[str, str]:
    """sha256 of every file under ``root`` by relative POSIX path."""
    if not root.is_dir():
        return {}
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def collect_written(work: Path, before: dict[str, str], out: Path) -> list[DeliverableFile]:
    """Files the agent created or changed in ``work`` (against ``before``), copied to a fresh ``out``."""
    shutil.rmtree(out, ignore_errors=True)  # a re-run attempt keeps nothing of the previous one
    found: list[DeliverableFile] = []
    for rel, sha in file_hashes(work).items():
        if before.get(rel) == sha:
            continue
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(work / rel, target)
        found.append(
            DeliverableFile(name=rel, path=str(target.resolve()), sha256=sha, size=target.stat().st_size)
        )
    return found


def copy_files(sources: Sequence[tuple[str, Path]], out: Path) -> list[DeliverableFile]:
    """Copy (name, path) files to a fresh ``out`` as deliverables (the oracle's files, imported outputs)."""
    shutil.rmtree(out, ignore_errors=True)
    found = []
    for name, source in sources:
        target = out / Path(name).name
        target.parent.mkdir(parents=True, exist_ok=True)
        data = source.read_bytes()
        target.write_bytes(data)
        found.append(
            DeliverableFile(
                name=Path(name).name,
                path=str(target.resolve()),
                sha256=hashlib.sha256(data).hexdigest(),
                size=len(data),
            )
        )
    return found


def render(deliverables: Sequence[DeliverableFile], final_text: str) -> str:
    """The text a judge reads: every deliverable parsed as the agent's read_file would show it, then the
    closing message. Files that cannot be parsed are named with the reason."""
    from graphforge.agent.tools import ToolFailure, read_as_text

    parts = []
    for d in deliverables:
        try:
            text = read_as_text(Path(d.path))
        except (ToolFailure, OSError, ValueError) as exc:
            text = f"(unreadable: {exc})"
        if len(text) > MAX_PER_FILE:
            text = text[:MAX_PER_FILE] + " [cut]"
        parts.append(f"=== file {d.name} ({d.size} bytes) ===\n{text}")
    if final_text.strip():
        parts.append(f"=== closing message ===\n{final_text.strip()}")
    out = "\n\n".join(parts)
    return out if len(out) <= MAX_RENDERED else out[:MAX_RENDERED] + " [cut]"


def content_hash(deliverables: Sequence[DeliverableFile], final_text: str) -> str:
    return stable_hash(sorted((d.name, d.sha256) for d in deliverables), final_text.strip())


def final_text_of(messages: Sequence[Message]) -> str:
    """The last assistant message's text (the closing summary of a finished run)."""
    for m in reversed(messages):
        if m.role == "assistant" and m.content and m.content.strip():
            return m.content.strip()
    return ""


def tool_call_counts(messages: str) -> dict[str, int]:
    """The calls an attempt made (its ``messages_json``), by tool name; calls whose text could not be read as
    a call count under ``(unreadable)``."""
    counts = Counter(c.get("function", {}).get("name") or "(unreadable)"
                     for m in json.loads(messages or "[]") for c in m.get("tool_calls") or [])
    return dict(sorted(counts.items()))


def messages_json(messages: Sequence[Message]) -> str:
    return json.dumps([m.model_dump(exclude_none=True) for m in messages], ensure_ascii=False)


class PromptedChatModel(OpenAICompatibleChatModel):
    """The chat model with another system prompt in place of the agent loop's own.

    Two players can be one served model under two system prompts. The prompt is swapped in the
    request itself, so the cache key and the recorded prompt hash follow the prompt really sent.
    """

    system_prompt: str | None = None

    def request_payload(
        self, messages: Sequence[BaseMessage], stop: list[str] | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        if self.system_prompt is not None:
            messages = [
                SystemMessage(self.system_prompt) if i == 0 and isinstance(m, SystemMessage) else m
                for i, m in enumerate(messages)
            ]
        return super().request_payload(messages, stop, **kwargs)

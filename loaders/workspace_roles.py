"""The chat-model role assigner: hidden roles for workspace files from their paths, labelled llm:<model>."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from graphforge.models.workspace import FileRole

_BATCH = 200
_PROMPT = """You assemble a workspace of real files for a work task. Give each path below one hidden role:
- core: a primary source the task is built on (reports, ledgers, statements, datasets);
- supporting: corroborates or explains the core files (memos, slides, press releases, exports, notes);
- confuser: plausible but wrong to use (drafts, superseded or outdated versions, other periods or entities);
- ambient: realistic background unrelated to the task (notices, newsletters, personal files).
Judge from the paths only. Answer with one entry per path, the path copied exactly.

Paths:
"""


class RoleChoice(BaseModel):
    path: str
    role: FileRole


class RoleAssignments(BaseModel):
    assignments: list[RoleChoice]


def make_llm_assigner(model: Any) -> Any:
    """An assigner calling ``model``; paths it skips or garbles fall back to the path rules (labelled so)."""
    from graphforge.llm import ask_structured
    from loaders.workspace import rule_role

    label = f"llm:{getattr(model, 'model', 'chat-model')}"

    def assign(paths: Sequence[str]) -> dict[str, tuple[FileRole, str]]:
        out: dict[str, tuple[FileRole, str]] = {}
        for start in range(0, len(paths), _BATCH):
            batch = list(paths[start : start + _BATCH])
            answer = ask_structured(model, RoleAssignments, _PROMPT + "\n".join(batch)).value
            for choice in answer.assignments:
                if choice.path in batch:
                    out[choice.path] = (choice.role, label)
        return {p: out.get(p, (rule_role(p), "rules")) for p in paths}

    return assign

"""The chat-model role assigner against the scripted server: roles from each file's opening text and
path, in batches up to a budget, with the path rules for whatever the model skips or garbles."""

from __future__ import annotations

import re
from pathlib import Path

from graphforge.evidence.workspace_roles import make_llm_assigner
from graphforge.llm import OpenAICompatibleChatModel
from graphforge.models.workspace import FileRole
from loaders.workspace import rule_role
from tests.support.llm_server import RecordedRequest, Reply, ScriptedLLMServer, json_answer, text


def _workspace(root: Path) -> list[str]:
    root.mkdir()
    (root / "notes.txt").write_text("DRAFT - superseded by the final Q2 report.\n", encoding="utf-8")
    (root / "q2.csv").write_text("segment,revenue\nNorth,100\nSouth,50\n", encoding="utf-8")
    (root / "canteen.md").write_text("# Canteen menu\nMonday: soup\n", encoding="utf-8")
    return ["canteen.md", "notes.txt", "q2.csv"]


def _by_content(request: RecordedRequest) -> Reply:
    """Roles read off the opening text only (names alone say nothing here)."""
    prompt = next(m["content"] for m in request.messages if "F1:" in (m.get("content") or ""))
    out = []
    for fid, body in re.findall(r"<<<opening of (F\d+)\n(.*?)\n>>>", prompt, re.DOTALL):
        role = ("confuser" if "superseded" in body else "core" if "revenue" in body
                else "ambient" if "menu" in body else "supporting")
        out.append({"file": fid, "role": role})
    return json_answer({"assignments": out})


def test_roles_come_from_the_opening_text(
    scripted_llm: ScriptedLLMServer, scripted_chat_model: OpenAICompatibleChatModel, tmp_path: Path
) -> None:
    paths = _workspace(tmp_path / "ws")
    scripted_llm.responder = _by_content
    records: list[object] = []
    roles = make_llm_assigner(scripted_chat_model, tmp_path / "ws", fallback=rule_role,
                              on_records=records.extend)(paths)
    label = f"llm:{scripted_chat_model.model}"
    assert roles == {"notes.txt": (FileRole.CONFUSER, label), "q2.csv": (FileRole.CORE, label),
                     "canteen.md": (FileRole.AMBIENT, label)}
    assert len(scripted_llm.chat_requests) == 1 and len(records) == 1
    sent = scripted_llm.chat_requests[0].body["messages"][0]["content"]
    assert "North\t100" in sent and "F2: notes.txt" in sent


def test_batches_follow_the_budget_and_skipped_files_get_the_path_rules(
    scripted_llm: ScriptedLLMServer, scripted_chat_model: OpenAICompatibleChatModel, tmp_path: Path
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    paths = [f"reports/annual_report_{i:02d}.txt" for i in range(12)]
    for rel in paths:
        (root / rel).parent.mkdir(exist_ok=True)
        (root / rel).write_text(f"Annual report {rel}\n" + "Revenue grew. " * 40, encoding="utf-8")
    # Every batch answers for its first file only; the others fall back to the path rules.
    scripted_llm.responder = lambda request: json_answer({"assignments": [{"file": "F1", "role": "ambient"}]})
    roles = make_llm_assigner(scripted_chat_model, root, head_chars=400, max_batch_tokens=500,
                              fallback=rule_role)(paths)
    calls = len(scripted_llm.chat_requests)
    assert 3 <= calls <= 12  # about 120 tokens a file, 500 a batch
    llm_labelled = [p for p, (_, source) in roles.items() if source.startswith("llm:")]
    assert len(llm_labelled) == calls and all(roles[p][0] is FileRole.AMBIENT for p in llm_labelled)
    assert all(roles[p] == (FileRole.CORE, "rules") for p in paths if p not in llm_labelled)


def test_an_answer_that_never_validates_leaves_the_batch_to_the_rules(
    scripted_llm: ScriptedLLMServer, scripted_chat_model: OpenAICompatibleChatModel, tmp_path: Path
) -> None:
    paths = _workspace(tmp_path / "ws")
    scripted_llm.push(text("core, core, core"), text("I think they are all core."))
    records: list[object] = []
    roles = make_llm_assigner(scripted_chat_model, tmp_path / "ws", fallback=rule_role,
                              on_records=records.extend)(paths)
    assert {source for _, source in roles.values()} == {"rules"} and len(records) == 2

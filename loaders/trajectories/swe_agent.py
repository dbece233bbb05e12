"""SWE-agent trajectories (``<instance>/<instance>.traj``): one JSON object per run.

``history`` is the conversation the model saw: items ``{"role", "content", "message_type", "agent",
"is_demo", "thought", "action", "tool_calls", "tool_call_ids"}``; with function calling, assistant
items carry OpenAI ``tool_calls`` and ``tool`` items name the call in ``tool_call_ids``. With a
thought/action parser the command is the item's ``action`` and the next ``observation`` item is its
output: graphforge keeps it as a ``bash`` call and its result. Demonstration items (``is_demo``) were
examples shown to the model, not its run, and are left out. ``trajectory`` (steps of action,
observation, thought, response) is used when a file has no history. ``info.model_stats`` gives
tokens and cost; ``replay_config`` (a JSON string) names the model.
"""

from __future__ import annotations

import json
from typing import Any

from graphforge.models.base import stable_hash
from loaders.trajectories.base import (
    Conversation,
    Issues,
    ParsedFile,
    SourceFile,
    TrajectoryFormatSpec,
    finish,
    loads,
    obj,
    text_of,
)

SCAFFOLD = "swe-agent"
SHELL = "bash"  # SWE-agent runs every command (its tools included) in the container's shell


def looks_like(data: Any) -> bool:
    if not isinstance(data, dict):
        return False
    steps, history = data.get("trajectory"), data.get("history")
    if not isinstance(steps, list) and not isinstance(history, list):
        return False
    if "info" in data or "replay_config" in data or "environment" in data:
        return True
    first_step = steps[0] if isinstance(steps, list) and steps else None
    first_item = history[0] if isinstance(history, list) and history else None
    return (isinstance(first_step, dict) and "observation" in first_step and "response" in first_step) or (
        isinstance(first_item, dict) and "message_type" in first_item
    )


def _from_history(history: list[Any], issues: Issues) -> Conversation:
    conv = Conversation()
    demos = 0
    pending_action: str | None = None  # call id of a thought/action step waiting for its observation
    for i, item in enumerate(history):
        if not isinstance(item, dict):
            issues.add(f"history item {i} is not an object; skipped")
            continue
        if item.get("is_demo"):
            demos += 1
            continue
        role, text = item.get("role"), text_of(item.get("content"))
        if role == "system":
            conv.system(text)
        elif role == "assistant":
            calls = item.get("tool_calls") if isinstance(item.get("tool_calls"), list) else []
            if calls:
                conv.assistant(text or text_of(item.get("thought")) or None)
                for j, call in enumerate(calls):
                    fn = call.get("function") if isinstance(call, dict) else None
                    if not isinstance(fn, dict) or not fn.get("name"):
                        issues.add(f"history item {i} tool call {j} has no function name; skipped")
                        continue
                    conv.tool_call(str(call.get("id") or f"call_{i}_{j}"), str(fn["name"]),
                                   fn.get("arguments", "{}"))
            elif item.get("action") and str(item["action"]).strip():
                pending_action = f"action_{i}"
                conv.tool_call(pending_action, SHELL, {"command": str(item["action"]).strip()},
                               thought=text_of(item.get("thought")) or text or None)
            else:
                conv.assistant(text)
        elif role == "tool":
            ids = item.get("tool_call_ids") or ([item["tool_call_id"]] if item.get("tool_call_id") else [])
            if not ids:
                issues.add(f"history item {i} is a tool result without tool_call_ids; skipped")
                continue
            for call_id in ids:
                conv.tool_result(str(call_id), text)
        elif role == "user":
            if pending_action is not None and item.get("message_type") == "observation":
                conv.tool_result(pending_action, text)
            else:
                conv.user(text)
            pending_action = None
            continue
        else:
            issues.add(f"history item {i} has unknown role {role!r}; skipped")
        if role != "assistant":
            pending_action = None
    if demos:
        plural = "s" if demos > 1 else ""
        issues.add(f"{demos} demonstration item{plural} (examples shown to the model) left out")
    return conv


def _from_steps(steps: list[Any], issues: Issues) -> Conversation:
    conv = Conversation()
    for i, step in enumerate(steps):
        if not isinstance(step, dict):
            issues.add(f"trajectory step {i} is not an object; skipped")
            continue
        action = str(step.get("action") or "").strip()
        thought = text_of(step.get("thought")) or text_of(step.get("response"))
        if not action:
            conv.assistant(thought)
            continue
        conv.tool_call(f"step_{i}", SHELL, {"command": action}, thought=thought or None)
        conv.tool_result(f"step_{i}", text_of(step.get("observation")))
    return conv


def _model(data: dict[str, Any]) -> str:
    config = data.get("replay_config")
    if isinstance(config, str):
        try:
            config = loads(config)
        except ValueError:
            config = None
    if isinstance(config, dict):
        agent = obj(config.get("agent"))
        model = obj(agent.get("model"))
        if model.get("name"):
            return str(model["name"])
    return "unknown"


def parse(src: SourceFile, spec_id: str | None = None) -> ParsedFile:
    issues = Issues(src.path)
    data = src.document()
    if not looks_like(data):
        issues.add("not a SWE-agent trajectory: expected an object with 'history' or 'trajectory'")
        return ParsedFile(issues=issues.items)
    history, steps = data.get("history"), data.get("trajectory")
    if isinstance(history, list) and any(isinstance(h, dict) and not h.get("is_demo") for h in history):
        conv = _from_history(history, issues)
    elif isinstance(steps, list):
        conv = _from_steps(steps, issues)
    else:
        conv = Conversation()
    info = obj(data.get("info"))
    stats = obj(info.get("model_stats"))
    instance = src.name.removesuffix(".traj")
    version = f"@{info['swe_agent_version']}" if info.get("swe_agent_version") else ""
    digest = stable_hash(json.dumps([m.model_dump() for m in conv.messages], ensure_ascii=False), length=12)
    return finish(
        conv,
        issues,
        unanswered="has no observation",
        empty="no agent turn in this trajectory",
        trajectory_id=f"{SCAFFOLD}:{instance}:{digest}",
        spec_id=spec_id,
        scaffold=SCAFFOLD,
        model=_model(data),
        prompt_tokens=_int(stats.get("tokens_sent")),
        completion_tokens=_int(stats.get("tokens_received")),
        cost_usd=_float(stats.get("instance_cost")),
        source=f"import:{SCAFFOLD}{version}:{src.name}",
    )


def _int(value: Any) -> int:
    return int(value) if isinstance(value, (int, float)) and value >= 0 else 0


def _float(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and value >= 0 else 0.0


FORMAT = TrajectoryFormatSpec(
    name="swe-agent",
    title="SWE-agent trajectories (.traj)",
    suffixes=frozenset({".traj"}),
    parse=parse,
    rank=10,
    document=looks_like,
    path=lambda path: path.suffix.lower() == ".traj",
    evaluable=False,  # its runs name SWE-bench instances, not graphforge tasks
)

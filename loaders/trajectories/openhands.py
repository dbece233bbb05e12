"""OpenHands trajectory JSON: a list of events, each an ``action`` or an ``observation``.

Agent tool calls carry ``tool_call_metadata`` (function_name, tool_call_id and the model_response they
came from); their observations carry the same tool_call_id. Several calls of one model response
become one assistant turn. Bookkeeping events (recall, agent state changes, condensation) are skipped.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from loaders.trajectories.base import Conversation, Issues, ParsedFile, finish, read_json, text_of

SCAFFOLD = "openhands"
_SKIP_ACTIONS = frozenset(
    {"recall", "change_agent_state", "condensation", "condensation_request", "null", "think_observation"}
)
_SKIP_OBSERVATIONS = frozenset({"recall", "agent_state_changed", "null", "condensation", "user_rejected"})
# Keys OpenHands adds to every action's args that are not tool arguments.
_BOOKKEEPING = frozenset(
    {
        "thought",
        "blocking",
        "hidden",
        "confirmation_state",
        "is_input",
        "security_risk",
        "is_confirmed",
        "impl_source",
        "wait_for_response",
        "image_urls",
        "file_urls",
        "kernel_init_code",
        "include_extra",
        "translated_ipython_code",
    }
)
_TOOL_ACTIONS = frozenset(
    {
        "run",
        "run_ipython",
        "read",
        "write",
        "edit",
        "browse",
        "browse_interactive",
        "delegate",
        "call_tool_mcp",
        "think",
        "finish",
        "task_tracking",
    }
)


def _events(data: Any) -> list[Any] | None:
    if isinstance(data, list):
        return data
    if isinstance(data, dict):
        for key in ("trajectory", "history", "events"):
            if isinstance(data.get(key), list):
                return list(data[key])
    return None


def _exact_arguments(meta: dict[str, Any], call_id: str) -> str | None:
    """The arguments exactly as the model sent them, when the model response was logged."""
    response = meta.get("model_response") or {}
    for choice in response.get("choices") or []:
        for call in (choice.get("message") or {}).get("tool_calls") or []:
            if call.get("id") == call_id:
                return (call.get("function") or {}).get("arguments")
    return None


def parse(path: Path, spec_id: str | None = None) -> ParsedFile:
    issues = Issues(path)
    events = _events(read_json(path))
    if events is None:
        issues.add("expected a list of events (or an object with 'history' / 'trajectory')")
        return ParsedFile(issues=issues.items)
    conv = Conversation()
    tools: list[dict[str, Any]] = []
    usage: dict[str, tuple[int, int]] = {}  # model_response id -> (prompt, completion): counted once
    model: str | None = None
    last_response: str | None = None
    session = path.stem
    for index, event in enumerate(events):
        where = f"event {index}" + (
            f" (id={event.get('id')})" if isinstance(event, dict) and "id" in event else ""
        )
        if not isinstance(event, dict):
            issues.add("event is not an object; skipped", record=where)
            continue
        action, observation = event.get("action"), event.get("observation")
        args = event.get("args") if isinstance(event.get("args"), dict) else {}
        meta = event.get("tool_call_metadata") if isinstance(event.get("tool_call_metadata"), dict) else None
        if meta:
            response = meta.get("model_response") or {}
            model = response.get("model") or model
            if response.get("id") and isinstance(response.get("usage"), dict):
                u = response["usage"]
                usage[response["id"]] = (
                    int(u.get("prompt_tokens") or 0),
                    int(u.get("completion_tokens") or 0),
                )
        if action is not None:
            source = event.get("source")
            if action in _SKIP_ACTIONS:
                continue
            if action == "system":
                conv.system(text_of(args.get("content") or event.get("message")))
                tools = [t for t in args.get("tools") or [] if isinstance(t, dict)] or tools
            elif action == "message":
                text = text_of(args.get("content") or event.get("message"))
                (conv.user if source == "user" else conv.assistant)(text)
            elif action == "finish":
                # finish is a tool call with no observation: kept as the closing assistant text, so the
                # message list stays valid (every tool call answered).
                conv.assistant(
                    text_of(
                        args.get("final_thought")
                        or args.get("message")
                        or args.get("thought")
                        or event.get("message")
                    )
                )
            elif meta and meta.get("tool_call_id"):
                call_id = str(meta["tool_call_id"])
                response_id = (meta.get("model_response") or {}).get("id")
                if response_id != last_response:
                    conv.assistant(text_of(args.get("thought")) or None)
                    last_response = response_id
                arguments = _exact_arguments(meta, call_id)
                if arguments is None:
                    arguments = json.dumps(
                        {k: v for k, v in args.items() if k not in _BOOKKEEPING}, ensure_ascii=False
                    )
                conv.tool_call(call_id, str(meta.get("function_name") or action), arguments)
            elif action in _TOOL_ACTIONS:
                issues.add(
                    f"action {action!r} without tool_call_metadata; kept as assistant text", record=where
                )
                conv.assistant(text_of(event.get("message")))
            else:
                issues.add(f"unknown action {action!r}; skipped", record=where)
        elif observation is not None:
            if observation in _SKIP_OBSERVATIONS:
                continue
            if meta and meta.get("tool_call_id"):
                extras = event.get("extras") if isinstance(event.get("extras"), dict) else {}
                code = (
                    (extras.get("metadata") or {}).get("exit_code")
                    if isinstance(extras.get("metadata"), dict)
                    else None
                )
                failed = observation == "error" or (isinstance(code, int) and code not in (0, -1))
                conv.tool_result(str(meta["tool_call_id"]), text_of(event.get("content")), failed)
            elif observation == "error":
                issues.add("error observation not tied to a tool call; kept as user text", record=where)
                conv.user(f"ERROR: {text_of(event.get('content'))}")
            else:
                issues.add(f"observation {observation!r} without tool_call_metadata; skipped", record=where)
        else:
            issues.add("event is neither an action nor an observation; skipped", record=where)
        session = str(event.get("session_id") or session)
    return finish(
        conv,
        issues,
        unanswered="has no observation",
        empty="no agent turn in this trajectory; nothing imported",
        trajectory_id=f"{SCAFFOLD}:{session}",
        spec_id=spec_id,
        scaffold=SCAFFOLD,
        model=str(model or "unknown"),
        tools=tools,
        prompt_tokens=sum(p for p, _ in usage.values()),
        completion_tokens=sum(c for _, c in usage.values()),
        source=f"import:{SCAFFOLD}:{path.name}",
    )

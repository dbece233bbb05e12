"""OpenHands: event streams and evaluation output.

An event stream is a list of events, each an ``action`` or an ``observation`` (a ``trajectory.json``
export, an object with ``history`` / ``events``, or a session's ``events/`` folder of ``<n>.json``
files). Evaluation runs write ``output.jsonl``: one instance per line, ``{"instance_id",
"instruction", "history", "metadata", "metrics", ...}``, where older releases wrote ``history`` as
``[action, observation]`` pairs. Agent tool calls carry ``tool_call_metadata`` (function_name,
tool_call_id and the model_response they came from); their observations carry the same tool_call_id.
Several calls of one model response become one assistant turn. Bookkeeping events (recall, agent
state changes, condensation) are skipped.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

from graphforge.errors import SourceFormatError
from graphforge.models.base import stable_hash
from graphforge.models.trajectory import Trajectory
from loaders.trajectories.base import (
    Conversation,
    Issues,
    ParsedFile,
    SourceFile,
    TrajectoryFormatSpec,
    close,
    obj,
    shown,
    text_of,
)

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


def is_event(value: Any) -> bool:
    return isinstance(value, dict) and ("action" in value or "observation" in value) and (
        "source" in value or "id" in value or "args" in value or "extras" in value or "timestamp" in value
    )


def events_of(data: Any) -> list[Any] | None:
    """The event list of an event-stream document, flattening old ``[action, observation]`` pairs."""
    if isinstance(data, dict):
        for key in ("history", "events", "trajectory"):
            if isinstance(data.get(key), list):
                data = data[key]
                break
    if not isinstance(data, list):
        return None
    flat: list[Any] = []
    for item in data:
        if isinstance(item, list) and len(item) == 2 and all(isinstance(e, dict) for e in item):
            flat.extend(e for e in item if e)  # an empty observation ({}) ends an old-style pair
        else:
            flat.append(item)
    return flat


def is_stream(data: Any) -> bool:
    events = events_of(data)
    if not events:
        return False
    return is_event(events[0]) and not (isinstance(data, dict) and "instance_id" in data)


def is_eval_record(value: Any) -> bool:
    return isinstance(value, dict) and "instance_id" in value and isinstance(value.get("history"), list)


def _exact_arguments(meta: dict[str, Any], call_id: str) -> str | None:
    """The arguments exactly as the model sent them, when the model response was logged."""
    response = meta.get("model_response") or {}
    for choice in response.get("choices") or []:
        for call in (choice.get("message") or {}).get("tool_calls") or []:
            if call.get("id") == call_id:
                return (call.get("function") or {}).get("arguments")
    return None


class Events(NamedTuple):
    conv: Conversation
    tools: list[dict[str, Any]]
    prompt_tokens: int
    completion_tokens: int
    model: str | None
    session: str | None


def read_events(events: list[Any], issues: Issues, line: int | None = None) -> Events:
    """The conversation an event list records, with the tools offered, usage and model."""
    conv = Conversation()
    tools: list[dict[str, Any]] = []
    usage: dict[str, tuple[int, int]] = {}  # model_response id -> (prompt, completion): counted once
    model: str | None = None
    last_response: str | None = None
    session: str | None = None
    for index, event in enumerate(events):
        try:
            where = f"event {index}" + (
                f" (id={event.get('id')})" if isinstance(event, dict) and "id" in event else ""
            )
            if not isinstance(event, dict):
                issues.add("event is not an object; skipped", line, where)
                continue
            action, observation = event.get("action"), event.get("observation")
            args = obj(event.get("args"))
            meta = event.get("tool_call_metadata")
            meta = meta if isinstance(meta, dict) else None
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
                        f"action {action!r} without tool_call_metadata; kept as assistant text", line, where
                    )
                    conv.assistant(text_of(event.get("message")))
                else:
                    issues.add(f"unknown action {action!r}; skipped", line, where)
            elif observation is not None:
                if observation in _SKIP_OBSERVATIONS:
                    continue
                if meta and meta.get("tool_call_id"):
                    extras = obj(event.get("extras"))
                    code = (
                        (extras.get("metadata") or {}).get("exit_code")
                        if isinstance(extras.get("metadata"), dict)
                        else None
                    )
                    failed = observation == "error" or (isinstance(code, int) and code not in (0, -1))
                    conv.tool_result(str(meta["tool_call_id"]), text_of(event.get("content")), failed)
                elif observation == "error":
                    issues.add("error observation not tied to a tool call; kept as user text", line, where)
                    conv.user(f"ERROR: {text_of(event.get('content'))}")
                else:
                    issues.add(f"observation {observation!r} without tool_call_metadata; skipped",
                               line, where)
            else:
                issues.add("event is neither an action nor an observation; skipped", line, where)
            session = str(event.get("session_id") or session or "") or None
        except (AttributeError, TypeError, ValueError) as exc:  # a field of an unexpected type
            issues.add(f"event {index} could not be read ({type(exc).__name__}: {exc}); skipped", line)
    return Events(conv, tools, sum(p for p, _ in usage.values()), sum(c for _, c in usage.values()), model,
                  session)


def _trajectory(found: Events, ident: str, src_name: str, issues: Issues, spec_id: str | None,
                line: int | None = None, model: str | None = None, cost: float = 0.0) -> Trajectory | None:
    return close(
        found.conv,
        issues,
        unanswered="has no observation",
        empty="no agent turn in this trajectory",
        line=line,
        trajectory_id=f"{SCAFFOLD}:{ident}",
        spec_id=spec_id,
        scaffold=SCAFFOLD,
        model=str(model or found.model or "unknown"),
        tools=found.tools,
        prompt_tokens=found.prompt_tokens,
        completion_tokens=found.completion_tokens,
        cost_usd=cost,
        source=f"import:{SCAFFOLD}:{src_name}" + (f":{line}" if line is not None else ""),
    )


def _eval_record(record: dict[str, Any], src: SourceFile, issues: Issues, spec_id: str | None,
                 line: int | None) -> Trajectory | None:
    """One evaluation instance: its history, with the instruction first when no event carries it."""
    events = events_of(record["history"]) or []
    found = read_events(events, issues, line)
    if record.get("instruction") and not any(m.role == "user" for m in found.conv.messages):
        at = next((i for i, m in enumerate(found.conv.messages) if m.role != "system"), 0)
        found.conv.messages.insert(at, _user(str(record["instruction"])))
    meta = obj(record.get("metadata"))
    llm = obj(meta.get("llm_config"))
    metrics = obj(record.get("metrics"))
    totals = metrics.get("accumulated_token_usage")
    if isinstance(totals, dict):  # the run's totals count every model call, condensation included
        found = found._replace(prompt_tokens=_int(totals.get("prompt_tokens")),
                               completion_tokens=_int(totals.get("completion_tokens")))
    cost = metrics.get("accumulated_cost")
    digest = stable_hash([m.model_dump() for m in found.conv.messages], length=12)
    return _trajectory(found, f"{record['instance_id']}:{digest}", src.name, issues, spec_id, line,
                       model=llm.get("model"), cost=float(cost) if isinstance(cost, (int, float)) else 0.0)


def _user(text: str) -> Any:
    conv = Conversation()
    conv.user(text)
    return conv.messages[0]


def _int(value: Any) -> int:
    return int(value) if isinstance(value, (int, float)) and value >= 0 else 0


def parse(src: SourceFile, spec_id: str | None = None) -> ParsedFile:
    issues = Issues(src.path)
    if src.is_document():
        data = src.document()
        if is_eval_record(data):
            t = _eval_record(data, src, issues, spec_id, None)
            return ParsedFile(trajectories=[t] if t else [], issues=issues.items)
        events = events_of(data)
        if events is None:
            issues.add("expected a list of events (or an object with 'history' / 'trajectory')")
            return ParsedFile(issues=issues.items)
        found = read_events(events, issues)
        t = _trajectory(found, found.session or src.name.rsplit(".", 1)[0], src.name, issues, spec_id)
        return ParsedFile(trajectories=[t] if t else [], issues=issues.items)
    out: list[Trajectory] = []
    for line, record in src.lines(issues):
        if not is_eval_record(record):
            issues.add("not an evaluation record (needs 'instance_id' and a 'history' list); skipped", line)
            continue
        t = _eval_record(record, src, issues, spec_id, line)
        if t is not None:
            out.append(t)
    return ParsedFile(trajectories=out, issues=issues.items)


def is_events_folder(path: Path) -> bool:
    """A session's ``events/`` folder: only ``<n>.json`` files."""
    try:
        names = [p.name for p in path.iterdir()]
    except OSError:
        return False
    return bool(names) and all(n.endswith(".json") and n[:-5].isdigit() for n in names)


def parse_events_folder(folder: Path, spec_id: str | None = None) -> ParsedFile:
    """One trajectory from a session's events folder (``events/0.json``, ``1.json``, ...)."""
    issues = Issues(folder)
    events: list[Any] = []
    for path in sorted(folder.iterdir(), key=lambda p: int(p.name[:-5])):
        try:
            events.append(SourceFile(path).document())
        except SourceFormatError as exc:
            issues.add(f"event file {shown(path.name)}: {exc.problem}; skipped")
    found = read_events(events, issues)
    session = found.session or shown(folder.resolve().parent.name)
    t = _trajectory(found, session, shown(folder.name), issues, spec_id)
    return ParsedFile(trajectories=[t] if t else [], issues=issues.items)


def is_session_folder(path: Path) -> bool:
    """A session's ``events/`` folder read as one log."""
    return path.name == "events" and is_events_folder(path)


FORMAT = TrajectoryFormatSpec(
    name="openhands",
    title="OpenHands event streams, events/ folders and evaluation output.jsonl",
    suffixes=frozenset({".json", ".jsonl"}),
    parse=parse,
    rank=40,
    document=lambda data: is_eval_record(data) or is_stream(data),
    record=is_eval_record,
    folder=is_session_folder,
    parse_folder=parse_events_folder,
)

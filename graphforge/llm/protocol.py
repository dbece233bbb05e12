"""The OpenAI chat-completions wire format: endpoint URLs, message conversion, response parsing."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.messages.tool import invalid_tool_call, tool_call

from graphforge.llm import text_tools
from graphforge.models.base import stable_hash

_VERSIONED = re.compile(r"/v\d+[a-z]*$")


def completions_url(base_url: str) -> str:
    """``http://h:8000`` and ``http://h:8000/v1`` both give ``http://h:8000/v1/chat/completions``.

    A base ending in a version segment (``/v1``, ``/api/paas/v4``) is used as is, as hosted APIs do.
    """
    parts = urlsplit(base_url.strip())
    path = parts.path.rstrip("/")
    if path.endswith("/chat/completions"):
        pass
    elif _VERSIONED.search(path):
        path += "/chat/completions"
    else:
        path += "/v1/chat/completions"
    # Credentials in the URL would leak into every error message: drop them from the shown endpoint.
    netloc = parts.hostname or ""
    if parts.port:
        netloc += f":{parts.port}"
    return urlunsplit((parts.scheme, netloc, path, "", ""))


def _text(content: str | list[str | dict[str, Any]]) -> str:
    if isinstance(content, str):
        return content
    pieces: list[str] = []
    for block in content:
        if isinstance(block, str):
            pieces.append(block)
        elif block.get("type") == "text":
            pieces.append(str(block.get("text", "")))
    return "".join(pieces)


def to_openai(message: BaseMessage) -> dict[str, Any]:
    """One langchain message as an OpenAI chat message dict."""
    if isinstance(message, SystemMessage):
        return {"role": "system", "content": _text(message.content)}
    if isinstance(message, HumanMessage):
        return {"role": "user", "content": _text(message.content)}
    if isinstance(message, ToolMessage):
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": _text(message.content)}
    if isinstance(message, AIMessage):
        # Content is a string even beside tool calls: OpenAI also takes null there, but llama-cpp-python's
        # server answers HTTP 500 to an assistant message whose content is null (and to one without it).
        out: dict[str, Any] = {"role": "assistant", "content": _text(message.content)}
        calls = [
            {
                "id": c.get("id") or f"call_{i}",
                "type": "function",
                "function": {"name": c["name"], "arguments": json.dumps(c["args"], ensure_ascii=False)},
            }
            for i, c in enumerate(message.tool_calls)
        ]
        # Calls whose arguments were not JSON go back verbatim, so the model sees what it wrote.
        calls += [
            {
                "id": c.get("id") or f"bad_{i}",
                "type": "function",
                "function": {"name": c.get("name") or "", "arguments": c.get("args") or ""},
            }
            for i, c in enumerate(message.invalid_tool_calls)
        ]
        if calls:
            out["tool_calls"] = calls
        return out
    if isinstance(message, ChatMessage):
        return {"role": message.role, "content": _text(message.content)}
    raise TypeError(f"cannot send a {type(message).__name__} to a chat-completions API")


def from_openai_message(data: Mapping[str, Any]) -> BaseMessage:
    """An OpenAI chat message dict as a langchain message (used to replay stored trajectories)."""
    role = data.get("role")
    content = data.get("content") or ""
    if role == "system":
        return SystemMessage(content=content)
    if role == "user":
        return HumanMessage(content=content)
    if role == "tool":
        return ToolMessage(content=content, tool_call_id=str(data.get("tool_call_id") or ""))
    if role == "assistant":
        return parse_assistant(data)
    raise ValueError(f"unknown chat role {role!r}")


def parse_assistant(data: Mapping[str, Any]) -> AIMessage:
    """The ``choices[0].message`` of a response as an AIMessage with parsed tool calls."""
    calls, invalid = [], []
    for position, raw in enumerate(data.get("tool_calls") or []):
        fn = raw.get("function") or {}
        # Some servers (Ollama, older vLLM parsers) send calls without ids: give each a positional one
        # here, so the tool results sent back and the stored trajectory answer the same id.
        name, args_text = fn.get("name"), fn.get("arguments")
        call_id = str(raw.get("id") or f"call_{position}")
        try:
            args = (
                json.loads(args_text)
                if isinstance(args_text, str) and args_text.strip()
                else (args_text or {})
            )
            if not isinstance(args, dict):
                raise ValueError("tool arguments are not a JSON object")
            calls.append(tool_call(name=name or "", args=args, id=call_id))
        except ValueError as exc:
            invalid.append(
                invalid_tool_call(
                    name=name,
                    args=args_text if isinstance(args_text, str) else None,
                    id=call_id,
                    error=str(exc),
                )
            )
    content = data.get("content") or ""
    if not calls and not invalid and isinstance(content, str):
        # A server that leaves the calls in the text (a GGUF served with GraphForge's template): read them.
        content, written = text_tools.split_calls(content)
        for position, found in enumerate(written):
            call_id = f"call_{position}"
            if found.args is not None:
                calls.append(tool_call(name=found.name, args=found.args, id=call_id))
            else:
                invalid.append(invalid_tool_call(name=found.name or None, args=found.raw, id=call_id,
                                                 error=found.error))
    extra: dict[str, Any] = {}
    # vLLM/SGLang reasoning parsers and GLM return the thinking trace beside the answer.
    for key in ("reasoning_content", "reasoning"):
        if data.get(key):
            extra["reasoning_content"] = data[key]
    return AIMessage(
        content=content,
        tool_calls=calls,
        invalid_tool_calls=invalid,
        additional_kwargs=extra,
    )


def call_results(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, str]]:
    """For each OpenAI-form message, the results that answer its tool calls: the ``tool`` messages right
    after it, by ``tool_call_id`` (empty for a message without calls). Ids are matched within a turn only:
    GraphForge's agent loop, like many servers, names every turn's first call ``call_0``, so a match over
    the whole conversation pairs a call with another turn's result."""
    out: list[dict[str, str]] = []
    for i, m in enumerate(messages):
        results: dict[str, str] = {}
        if m.get("role") == "assistant" and m.get("tool_calls"):
            for r in messages[i + 1:]:
                if r.get("role") != "tool":
                    break
                results.setdefault(str(r.get("tool_call_id")), str(r.get("content") or ""))
        out.append(results)
    return out


def prompt_hash(payload: Mapping[str, Any]) -> str:
    """The cache key of a request: everything that determines the answer, nothing that does not."""
    keyed = {k: v for k, v in payload.items() if k not in ("stream", "user")}
    return stable_hash(keyed, length=64)


def openai_tool_choice(choice: str | Mapping[str, Any] | bool | None, names: Sequence[str]) -> Any:
    """langchain-style ``tool_choice`` (a tool name, "any", True) in OpenAI's vocabulary."""
    if choice is None or isinstance(choice, Mapping):
        return choice
    if choice is True or choice in ("any", "required"):
        return "required" if len(names) != 1 else {"type": "function", "function": {"name": names[0]}}
    if choice in ("auto", "none"):
        return choice
    if choice is False:
        return "none"
    return {"type": "function", "function": {"name": choice}}


# Runs of key-like characters: a proxy that echoes the Authorization header may cut or re-encode it.
_TOKEN = re.compile(r"[A-Za-z0-9_\-.~+/=]{6,}")
_BEARER = re.compile(r"(?i)(bearer\s+)\S+")
_MIN_LEAK = 6  # a shared run this long between a token and the key counts as a piece of the key


def redact(text: str, secret: str | None) -> str:
    """``text`` with the key and every piece of it (>= 6 characters) replaced by ``***``.

    Call it on the whole text before cutting it short: cutting first can leave a piece of the key that
    a whole-key replacement no longer finds. Anything after ``Bearer`` goes as well.
    """
    text = _BEARER.sub(r"\1***", text)
    if not secret:
        return text
    text = text.replace(secret, "***")
    if len(secret) < _MIN_LEAK:
        return text
    pieces = {secret[i : i + _MIN_LEAK] for i in range(len(secret) - _MIN_LEAK + 1)}

    def scrub(match: re.Match[str]) -> str:
        token = match.group(0)
        for i in range(len(token) - _MIN_LEAK + 1):
            if token[i : i + _MIN_LEAK] in pieces:
                return "***"
        return token

    return _TOKEN.sub(scrub, text)

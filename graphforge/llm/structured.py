"""Structured output: response_format json_schema, tool-call forcing as the fallback, one repair retry."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, TypeVar

from langchain_core.language_models import LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.runnables import Runnable, RunnableLambda
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel, ValidationError

from graphforge.llm.records import RECORDS_KEY, LLMCallRecord, LLMHTTPError, StructuredOutputError, records_of

if TYPE_CHECKING:
    from graphforge.llm.model import OpenAICompatibleChatModel

T = TypeVar("T")
# Statuses with which servers say "I do not support response_format json_schema".
_UNSUPPORTED = frozenset({400, 404, 415, 422, 501})
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)


class Structured(NamedTuple, Generic[T]):
    """A validated answer and the records of every call it took (first try and repair)."""

    value: T
    records: list[LLMCallRecord]


def _schema_name(schema: dict[str, Any] | type) -> str:
    if isinstance(schema, type):
        return schema.__name__
    return re.sub(r"[^A-Za-z0-9_-]", "_", str(schema.get("title") or "output"))[:64]


def _json_schema(schema: dict[str, Any] | type) -> dict[str, Any]:
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return schema.model_json_schema()
    if isinstance(schema, dict):
        return schema
    raise TypeError(f"structured output needs a pydantic model or a JSON schema dict, not {schema!r}")


def _extract_json(text: str) -> Any:
    """The JSON value in an answer; tolerates code fences and prose around one object."""
    text = text.strip()
    if fenced := _FENCE.match(text):
        text = fenced.group(1)
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        start, end = text.find("{"), text.rfind("}")
        if 0 <= start < end:
            return json.loads(text[start : end + 1])
        raise


def _validate(schema: dict[str, Any] | type, data: Any) -> Any:
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return schema.model_validate(data)
    if not isinstance(data, dict) or not isinstance(schema, dict):
        raise ValueError("the answer is not a JSON object")
    missing = [k for k in schema.get("required", []) if k not in data]
    if missing:
        raise ValueError(f"missing required keys {missing}")
    return data


def parse_answer(message: AIMessage, schema: dict[str, Any] | type, method: str) -> Any:
    """Validate one answer; raises ValueError (or ValidationError) with a message fit for a repair prompt."""
    if method == "function_calling":
        if not message.tool_calls:
            if message.invalid_tool_calls:
                raise ValueError(
                    f"tool arguments are not valid JSON: {message.invalid_tool_calls[0].get('error')}"
                )
            raise ValueError(f"no call of the {_schema_name(schema)} tool was made")
        return _validate(schema, message.tool_calls[0]["args"])
    content = message.content if isinstance(message.content, str) else str(message.content)
    return _validate(schema, _extract_json(content))


def _repair_messages(
    messages: list[BaseMessage], raw: AIMessage, error: str, method: str, name: str
) -> list[BaseMessage]:
    if method == "function_calling" and raw.tool_calls:
        return [
            *messages,
            raw,
            ToolMessage(
                content=f"Invalid arguments: {error}\nCall {name} again with corrected arguments.",
                tool_call_id=raw.tool_calls[0].get("id") or "call_0",
            ),
        ]
    return [
        *messages,
        raw,
        HumanMessage(
            content=f"Your answer did not match the required JSON schema: {error}\n"
            "Answer again with only the corrected JSON object."
        ),
    ]


class _Call:
    """One structured invocation (shared by the sync and async paths)."""

    def __init__(
        self,
        model: OpenAICompatibleChatModel,
        schema: dict[str, Any] | type,
        method: str,
        kwargs: dict[str, Any],
    ) -> None:
        if method not in ("json_schema", "function_calling"):
            raise ValueError(f"unknown structured-output method {method!r}")
        self.model, self.schema, self.kwargs = model, schema, kwargs
        self.name = _schema_name(schema)
        self.method = "function_calling" if self.name in model._structured_fallback else method

    def request(self, method: str, repair: bool) -> dict[str, Any]:
        kwargs = dict(self.kwargs, purpose="structured-repair" if repair else "structured")
        if method == "json_schema":
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": self.name, "schema": _json_schema(self.schema), "strict": False},
            }
        else:
            tool = convert_to_openai_tool(
                self.schema
                if isinstance(self.schema, type)
                else {
                    "name": self.name,
                    "description": self.schema.get("description", ""),
                    "parameters": self.schema,
                }
            )
            kwargs["tools"] = [tool]
            kwargs["tool_choice"] = {"type": "function", "function": {"name": tool["function"]["name"]}}
        return kwargs

    def fall_back(self, exc: LLMHTTPError) -> bool:
        if self.method == "json_schema" and exc.status_code in _UNSUPPORTED:
            self.model._structured_fallback.add(self.name)
            self.method = "function_calling"
            return True
        return False

    def forget(self, raw: AIMessage) -> None:
        # An answer that failed validation must not be replayed from the cache on the next run.
        cache = self.model.response_cache
        if cache is not None and (key := raw.response_metadata.get("prompt_hash")):
            cache.delete(str(key))

    def finish(self, raws: list[AIMessage], parsed: Any, error: Exception | None, include_raw: bool) -> Any:
        records = [r.model_dump() for raw in raws for r in records_of(raw)]
        last = raws[-1]
        last.response_metadata = {**last.response_metadata, RECORDS_KEY: records}
        if include_raw:
            return {"raw": last, "parsed": parsed, "parsing_error": error}
        if error is not None:
            raise StructuredOutputError(
                f"chat API {self.model.endpoint}: answer for {self.name} did not validate after one repair: "
                f"{str(error)[:400]}"
            ) from error
        return parsed


def _messages(model: OpenAICompatibleChatModel, value: LanguageModelInput) -> list[BaseMessage]:
    return model._convert_input(value).to_messages()


def structured_runnable(
    model: OpenAICompatibleChatModel,
    schema: dict[str, Any] | type,
    *,
    include_raw: bool,
    method: str,
    **kwargs: Any,
) -> Runnable[LanguageModelInput, Any]:
    """The runnable behind ``with_structured_output``."""

    def invoke(value: LanguageModelInput) -> Any:
        call = _Call(model, schema, method, kwargs)
        messages = _messages(model, value)
        try:
            raw = model.invoke(messages, **call.request(call.method, False))
        except LLMHTTPError as exc:
            if not call.fall_back(exc):
                raise
            raw = model.invoke(messages, **call.request(call.method, False))
        assert isinstance(raw, AIMessage)
        try:
            return call.finish([raw], parse_answer(raw, schema, call.method), None, include_raw)
        except (ValueError, ValidationError) as exc:
            call.forget(raw)
            retry = _repair_messages(messages, raw, str(exc), call.method, call.name)
            fixed = model.invoke(retry, **call.request(call.method, True))
            assert isinstance(fixed, AIMessage)
            try:
                return call.finish([raw, fixed], parse_answer(fixed, schema, call.method), None, include_raw)
            except (ValueError, ValidationError) as exc2:
                call.forget(fixed)
                return call.finish([raw, fixed], None, exc2, include_raw)

    async def ainvoke(value: LanguageModelInput) -> Any:
        call = _Call(model, schema, method, kwargs)
        messages = _messages(model, value)
        try:
            raw = await model.ainvoke(messages, **call.request(call.method, False))
        except LLMHTTPError as exc:
            if not call.fall_back(exc):
                raise
            raw = await model.ainvoke(messages, **call.request(call.method, False))
        assert isinstance(raw, AIMessage)
        try:
            return call.finish([raw], parse_answer(raw, schema, call.method), None, include_raw)
        except (ValueError, ValidationError) as exc:
            call.forget(raw)
            retry = _repair_messages(messages, raw, str(exc), call.method, call.name)
            fixed = await model.ainvoke(retry, **call.request(call.method, True))
            assert isinstance(fixed, AIMessage)
            try:
                return call.finish([raw, fixed], parse_answer(fixed, schema, call.method), None, include_raw)
            except (ValueError, ValidationError) as exc2:
                call.forget(fixed)
                return call.finish([raw, fixed], None, exc2, include_raw)

    return RunnableLambda(invoke, afunc=ainvoke, name=f"structured[{_schema_name(schema)}]")


def ask_structured(
    model: OpenAICompatibleChatModel,
    schema: type[T],
    messages: LanguageModelInput | Sequence[BaseMessage],
    **kwargs: Any,
) -> Structured[T]:
    """Ask for a ``schema`` instance; returns it with the call records (raises StructuredOutputError)."""
    out = model.with_structured_output(schema, include_raw=True, **kwargs).invoke(messages)
    return _unpack(out)


async def aask_structured(
    model: OpenAICompatibleChatModel,
    schema: type[T],
    messages: LanguageModelInput | Sequence[BaseMessage],
    **kwargs: Any,
) -> Structured[T]:
    """Async ``ask_structured`` (the model's concurrency limit applies across concurrent calls)."""
    out = await model.with_structured_output(schema, include_raw=True, **kwargs).ainvoke(messages)
    return _unpack(out)


def _unpack(out: Mapping[str, Any]) -> Structured[Any]:
    if out["parsing_error"] is not None:
        raise StructuredOutputError(
            f"structured answer did not validate after one repair: {str(out['parsing_error'])[:400]}"
        ) from out["parsing_error"]
    return Structured(out["parsed"], records_of(out["raw"]))

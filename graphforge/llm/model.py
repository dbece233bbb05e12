"""A langchain-core chat model over any OpenAI-compatible ``/v1/chat/completions`` endpoint (httpx)."""

from __future__ import annotations

import asyncio
import functools
import logging
import random
import re
import ssl
import threading
import time
import weakref
from collections.abc import Awaitable, Callable, Sequence
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

import httpx
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field, PrivateAttr, SecretStr

from graphforge.llm.cache import ResponseCache
from graphforge.llm.ledger import LEDGER
from graphforge.llm.protocol import (
    completions_url,
    openai_tool_choice,
    parse_assistant,
    prompt_hash,
    redact,
    to_openai,
)
from graphforge.llm.records import CONTEXT_OVERFLOW, RECORDS_KEY, LLMCallRecord, LLMHTTPError
from graphforge.llm.sync import ready, run_sync

log = logging.getLogger("graphforge.llm")

# Request keys a caller may set through invoke(..., key=value) or .bind(key=value).
_PASSTHROUGH = (
    "temperature",
    "top_p",
    "max_tokens",
    "seed",
    "stop",
    "tools",
    "tool_choice",
    "response_format",
    "parallel_tool_calls",
    "presence_penalty",
    "frequency_penalty",
    "grammar",  # llama.cpp's GBNF (a server extension): the forced final write of text-call models
)
# 408/409/425/429 and every 5xx are worth another try; other 4xx are the caller's mistake.
_RETRY_STATUS = frozenset({408, 409, 425, 429})
_RETRY_AFTER_CAP_S = 300.0
_SHOWN_BODY = 300  # characters of an error body kept in the message (after the key is removed)
# A 5xx whose body says the request itself is wrong will be refused again: llama-cpp-python answers an
# unsupported response_format with HTTP 500 "Input should be 'text' or 'json_object'"; others say
# "validation error", "not supported", "Unrecognized request argument", "extra inputs are not permitted".
_INVALID_REQUEST = re.compile(
    r"input should be|validation error|invalid request|invalid_request|is not supported|not supported|"
    r"unsupported|unrecognized (request )?argument|extra (inputs|fields) (are )?not permitted|"
    r"unknown (field|parameter|argument)|must be one of|bad request|invalid value|invalid type|"
    r"field required|missing required|" + CONTEXT_OVERFLOW,
    re.IGNORECASE,
)


@functools.cache
def _ssl_context() -> ssl.SSLContext:
    # Building a context loads the CA bundle (~75 ms): do it once, not for every request's client.
    return httpx.create_ssl_context()


class OpenAICompatibleChatModel(BaseChatModel):
    """Chat completions over HTTP with retries, a concurrency limit, an on-disk cache and cost accounting.

    Works with vLLM, SGLang, Ollama, llama.cpp server and hosted OpenAI-compatible APIs. Every
    AIMessage it returns carries ``usage_metadata`` and, under ``response_metadata["graphforge_calls"]``,
    the LLMCallRecord of the request (see ``graphforge.llm.records_of``).
    """

    base_url: str
    model: str
    api_key: SecretStr | None = Field(default=None, repr=False)
    timeout_s: float = 120.0
    max_retries: int = 4
    concurrency: int = 4
    cost_per_1k_input: float = 0.0
    cost_per_1k_output: float = 0.0
    cache_dir: Path | None = None  # None: no response cache
    temperature: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    backoff_s: float = 1.0  # first retry waits about this long, doubling each time
    backoff_max_s: float = 60.0
    extra_body: dict[str, Any] = Field(default_factory=dict)  # server-specific keys (e.g. vLLM's top_k)
    # How structured output is asked for: "auto" detects it once per endpoint (see llm.structured),
    # or one of "json_schema", "json_object", "tools", "prompt".
    structured_method: str = "auto"
    # Answer only from the response cache; a miss is an LLMError naming the request (proves a re-run
    # makes no model calls).
    replay_only: bool = False

    _thread_gate: threading.BoundedSemaphore = PrivateAttr()
    _loop_gates: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = PrivateAttr()
    _cache: ResponseCache | None = PrivateAttr(default=None)

    def model_post_init(self, context: Any, /) -> None:
        super().model_post_init(context)
        self._thread_gate = threading.BoundedSemaphore(self.concurrency)
        self._loop_gates = weakref.WeakKeyDictionary()
        self._cache = ResponseCache(self.cache_dir) if self.cache_dir is not None else None

    @property
    def _llm_type(self) -> str:
        return "openai-compatible"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model": self.model, "endpoint": self.endpoint}

    @property
    def endpoint(self) -> str:
        return completions_url(self.base_url)

    @property
    def response_cache(self) -> ResponseCache | None:
        return self._cache

    # -- request building -------------------------------------------------------------------------

    def request_payload(
        self, messages: Sequence[BaseMessage], stop: list[str] | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """The JSON body that would be sent for these messages (also the basis of the cache key)."""
        payload: dict[str, Any] = {"model": self.model, "messages": [to_openai(m) for m in messages]}
        for key, value in (
            ("temperature", self.temperature),
            ("max_tokens", self.max_tokens),
            ("seed", self.seed),
        ):
            if value is not None:
                payload[key] = value
        payload.update(self.extra_body)
        for key in _PASSTHROUGH:
            if kwargs.get(key) is not None:
                payload[key] = kwargs[key]
        if stop:
            payload["stop"] = stop
        return payload

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key is not None and self.api_key.get_secret_value():
            headers["Authorization"] = f"Bearer {self.api_key.get_secret_value()}"
        return headers

    def _scrub(self, text: str) -> str:
        # Some proxies echo the request headers in their error bodies: never let the key (or a piece
        # of it) through. Always called on the whole text, before anything cuts it short.
        return redact(text, self.api_key.get_secret_value() if self.api_key is not None else None)

    def _delay(self, attempt: int, response: httpx.Response | None) -> float:
        if response is not None and (header := response.headers.get("retry-after")):
            try:
                return min(max(float(header), 0.0), _RETRY_AFTER_CAP_S)
            except ValueError:
                try:
                    wait = parsedate_to_datetime(header).timestamp() - time.time()
                    return min(max(wait, 0.0), _RETRY_AFTER_CAP_S)
                except (TypeError, ValueError):
                    pass
        # Full jitter keeps many concurrent rollouts from retrying in lock-step.
        return min(self.backoff_max_s, self.backoff_s * 2.0**attempt) * (0.5 + random.random() / 2)

    def _verdict(self, response: httpx.Response) -> tuple[bool, str]:
        """(retryable, problem) for a non-200 answer.

        Retried: 408/409/425/429 and 5xx, except a 5xx whose body says the request is invalid (it
        would be refused the same way every time). The key is removed from the whole body first;
        only then is the body cut to its first characters.
        """
        full = self._scrub(response.text)
        body = " ".join(full.split())[:_SHOWN_BODY]
        status = response.status_code
        retry = status in _RETRY_STATUS or (status >= 500 and not _INVALID_REQUEST.search(full))
        return retry, f"HTTP {status}: {body}"

    def _body(self, response: httpx.Response) -> dict[str, Any]:
        try:
            body = response.json()
            body["choices"][0]["message"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise LLMHTTPError(
                self.endpoint, f"answer is not a chat completion ({exc})", response.status_code
            ) from exc
        if not isinstance(body, dict):
            raise LLMHTTPError(self.endpoint, "answer is not a JSON object", response.status_code)
        return body

    def _transport_problem(self, exc: httpx.TransportError) -> str:
        if isinstance(exc, httpx.TimeoutException):
            return f"timed out after {self.timeout_s:g} s ({type(exc).__name__})"
        return f"unreachable ({type(exc).__name__}: {self._scrub(str(exc))})"

    def _refusal(self, response: httpx.Response, attempt: int) -> tuple[str, int]:
        """(problem, status) of a non-200 answer worth retrying; raises at once for one that is not."""
        retry, problem = self._verdict(response)
        if not retry:
            raise LLMHTTPError(self.endpoint, problem, response.status_code, attempt + 1, permanent=True)
        return problem, response.status_code

    def _backoff(self, attempt: int, response: httpx.Response | None, problem: str) -> float:
        """Seconds to wait before the next attempt, logged with the reason for the retry."""
        wait = self._delay(attempt, response)
        log.warning("chat API %s: %s; retry %d/%d in %.2f s",
                    self.endpoint, problem, attempt + 1, self.max_retries, wait)
        return wait

    # One retry loop for both clients: what each attempt means (retry or raise, how long to wait) lives in
    # the helpers above; _post drives the same coroutine with blocking calls (graphforge.llm.sync).
    async def _retrying(
        self,
        send: Callable[[], Awaitable[httpx.Response]],
        sleep: Callable[[float], Awaitable[None]],
    ) -> tuple[dict[str, Any], int]:
        problem, status = "no attempt made", None
        for attempt in range(self.max_retries + 1):
            response = None
            try:
                response = await send()
            except httpx.TransportError as exc:
                problem, status = self._transport_problem(exc), None
            else:
                if response.status_code == 200:
                    return self._body(response), attempt + 1
                problem, status = self._refusal(response, attempt)
            if attempt < self.max_retries:
                await sleep(self._backoff(attempt, response, problem))
        raise LLMHTTPError(self.endpoint, problem, status, self.max_retries + 1)

    def _post(self, payload: dict[str, Any]) -> tuple[dict[str, Any], int]:
        with httpx.Client(timeout=self.timeout_s, verify=_ssl_context()) as client:
            send = ready(lambda: client.post(self.endpoint, json=payload, headers=self._headers()))
            return run_sync(self._retrying(send, ready(time.sleep)))

    async def _apost(self, payload: dict[str, Any]) -> tuple[dict[str, Any], int]:
        async with httpx.AsyncClient(timeout=self.timeout_s, verify=_ssl_context()) as client:
            return await self._retrying(
                lambda: client.post(self.endpoint, json=payload, headers=self._headers()), asyncio.sleep
            )

    # -- results ----------------------------------------------------------------------------------

    def _result(
        self, body: dict[str, Any], key: str, attempts: int, latency: float, cached: bool, purpose: str
    ) -> ChatResult:
        choice = body["choices"][0]
        message = parse_assistant(choice["message"])
        usage = body.get("usage") or {}
        tokens_in, tokens_out = int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
        cost = tokens_in / 1000 * self.cost_per_1k_input + tokens_out / 1000 * self.cost_per_1k_output
        record = LLMCallRecord(
            model=str(body.get("model") or self.model),
            endpoint=self.endpoint,
            prompt_hash=key,
            input_tokens=tokens_in,
            output_tokens=tokens_out,
            cost_usd=round(cost, 8),
            cached=cached,
            attempts=0 if cached else attempts,
            latency_s=round(latency, 4),
            finish_reason=choice.get("finish_reason"),
            purpose=purpose,
        )
        LEDGER.add(record)
        message.usage_metadata = {
            "input_tokens": tokens_in,
            "output_tokens": tokens_out,
            "total_tokens": tokens_in + tokens_out,
        }
        message.response_metadata = {
            "model_name": record.model,
            "finish_reason": record.finish_reason,
            "prompt_hash": key,
            RECORDS_KEY: [record.model_dump()],
        }
        return ChatResult(
            generations=[ChatGeneration(message=message)],
            llm_output={"token_usage": usage, "model_name": record.model},
        )

    def _prepare(
        self, messages: list[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]
    ) -> tuple[dict[str, Any], str, bool, str]:
        purpose = str(kwargs.pop("purpose", "chat"))
        use_cache = bool(kwargs.pop("use_cache", True)) and self._cache is not None
        payload = self.request_payload(messages, stop, **kwargs)
        return payload, prompt_hash(payload), use_cache, purpose

    def _refuse_if_replay_only(self, key: str, purpose: str) -> None:
        if self.replay_only:
            raise LLMHTTPError(self.endpoint, f"replay-only: no cached answer for this {purpose} request "
                                              f"(prompt hash {key[:16]})", permanent=True)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        payload, key, use_cache, purpose = self._prepare(messages, stop, kwargs)
        if use_cache and self._cache is not None and (hit := self._cache.get(key)) is not None:
            return self._result(hit, key, 0, 0.0, True, purpose)
        self._refuse_if_replay_only(key, purpose)
        started = time.perf_counter()
        with self._thread_gate:
            body, attempts = self._post(payload)
        result = self._result(body, key, attempts, time.perf_counter() - started, False, purpose)
        if use_cache and self._cache is not None:
            self._cache.put(key, self.model, body)  # only answers that arrived and parsed get here
        return result

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        payload, key, use_cache, purpose = self._prepare(messages, stop, kwargs)
        cache = self._cache if use_cache else None
        # sqlite blocks: off the event loop, so one rollout's cache I/O does not stall the others.
        if cache is not None and (hit := await asyncio.to_thread(cache.get, key)) is not None:
            return self._result(hit, key, 0, 0.0, True, purpose)
        self._refuse_if_replay_only(key, purpose)
        loop = asyncio.get_running_loop()
        gate = self._loop_gates.get(loop)
        if gate is None:
            gate = self._loop_gates[loop] = asyncio.Semaphore(self.concurrency)
        started = time.perf_counter()
        async with gate:
            body, attempts = await self._apost(payload)
        result = self._result(body, key, attempts, time.perf_counter() - started, False, purpose)
        if cache is not None:
            await asyncio.to_thread(cache.put, key, self.model, body)
        return result

    # -- tools and structured output --------------------------------------------------------------

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | dict[str, Any] | bool | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Offer tools (OpenAI schemas, pydantic models, functions or langchain tools) to the model."""
        formatted = [convert_to_openai_tool(t) for t in tools]
        names = [t["function"]["name"] for t in formatted]
        if tool_choice is not None:
            kwargs["tool_choice"] = openai_tool_choice(tool_choice, names)
        return self.bind(tools=formatted, **kwargs)

    def with_structured_output(
        self,
        schema: dict[str, Any] | type,
        *,
        include_raw: bool = False,
        method: str = "auto",
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, Any]:
        """Answers validated into ``schema`` (a pydantic model or a JSON schema dict).

        method "auto" uses ``structured_method`` or, when that is "auto" too, the method detected for
        this endpoint (json_schema, json_object, tools, prompt: see ``graphforge.llm.structured``).
        An answer that does not validate gets one repair request. With include_raw the runnable
        returns ``{"raw", "parsed", "parsing_error"}`` instead of raising StructuredOutputError.
        """
        from graphforge.llm.structured import structured_runnable

        return structured_runnable(self, schema, include_raw=include_raw, method=method, **kwargs)

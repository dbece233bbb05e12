"""What one chat-model call cost and produced, in a form that can be stored on the node it made."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict

from graphforge.errors import LLMError

RECORDS_KEY = "graphforge_calls"  # AIMessage.response_metadata key holding list[LLMCallRecord dict]


class LLMCallRecord(BaseModel):
    """One request to the chat API: enough to price it, find it in the cache and cite it as provenance."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    endpoint: str  # the chat-completions URL (never carries the key)
    prompt_hash: str  # cache key: sha256 of model + messages + tools + response format + sampling params
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    cached: bool = False  # served from the on-disk cache; tokens and cost are those of the original call
    attempts: int = 1  # HTTP attempts, retries included (0 when cached)
    latency_s: float = 0.0
    finish_reason: str | None = None
    purpose: str = "chat"  # "chat" | "structured" | "structured-repair"

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def as_properties(self) -> dict[str, Any]:
        """Flat ``llm_*`` properties to SET on the node the call produced."""
        return {
            "llm_model": self.model,
            "llm_prompt_hash": self.prompt_hash,
            "llm_input_tokens": self.input_tokens,
            "llm_output_tokens": self.output_tokens,
            "llm_cost_usd": self.cost_usd,
            "llm_cached": self.cached,
        }


class CallTotals(BaseModel):
    """Token and cost totals over several calls (a rollout, a judging run)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    calls: int = 0
    cached_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0

    @classmethod
    def of(cls, records: Iterable[LLMCallRecord]) -> CallTotals:
        rs = list(records)
        return cls(
            calls=len(rs),
            cached_calls=sum(r.cached for r in rs),
            input_tokens=sum(r.input_tokens for r in rs),
            output_tokens=sum(r.output_tokens for r in rs),
            cost_usd=round(sum(r.cost_usd for r in rs), 8),
        )


def records_of(message: Any) -> list[LLMCallRecord]:
    """The call records attached to an AIMessage (or to the ``raw`` of a structured-output dict)."""
    if isinstance(message, Mapping) and "raw" in message:
        message = message["raw"]
    meta = getattr(message, "response_metadata", None) or {}
    return [LLMCallRecord.model_validate(r) for r in meta.get(RECORDS_KEY, [])]


# How servers say a request does not fit the model's context: llama.cpp "exceed context window",
# OpenAI and vLLM "maximum context length", TGI "too many tokens", others "exceeds the context".
CONTEXT_OVERFLOW = (
    r"context length|context window|maximum context|too many tokens|exceeds? (the )?(maximum )?context"
)
_CONTEXT_OVERFLOW = re.compile(CONTEXT_OVERFLOW, re.IGNORECASE)


class LLMHTTPError(LLMError):
    """The chat API answered with an error status (or not at all) after the retries; names the endpoint."""

    def __init__(
        self,
        endpoint: str,
        problem: str,
        status_code: int | None = None,
        attempts: int = 1,
        *,
        permanent: bool = False,
    ) -> None:
        tail = f" after {attempts} attempts" if attempts > 1 else ""
        super().__init__(f"chat API {endpoint}: {problem}{tail}")
        self.endpoint = endpoint
        self.status_code = status_code
        self.attempts = attempts
        self.problem = problem
        # A refusal that will not change on retry (a 4xx, or a 5xx saying the request is invalid).
        self.permanent = permanent

    @property
    def context_overflow(self) -> bool:
        """The server refused the request as longer than the model's context (a shorter one may pass)."""
        return _CONTEXT_OVERFLOW.search(self.problem) is not None


class StructuredOutputError(LLMError):
    """The model's answer did not validate against the requested schema, even after one repair.

    ``records`` holds the calls it took (first try and repair), so they still reach the cost ledger.
    """

    def __init__(self, message: str, records: list[LLMCallRecord] | None = None) -> None:
        super().__init__(message)
        self.records: list[LLMCallRecord] = list(records or [])

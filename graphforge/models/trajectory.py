"""Trajectories: OpenAI chat messages with tool calls plus rollout metadata."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class FunctionCall(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    arguments: str  # JSON text, as the OpenAI API sends it


class ToolCall(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    type: Literal["function"] = "function"
    function: FunctionCall


class Message(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Literal["system", "user", "assistant", "tool"]
    content: str | None = None
    tool_calls: list[ToolCall] | None = None
    tool_call_id: str | None = None
    name: str | None = None


class DeliverableFile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    path: str  # absolute path of the collected file on disk
    sha256: str
    size: int


class TrajectoryStatus(StrEnum):
    MATERIALISED = "materialised"  # rollout finished, deliverables collected
    FAILED = "failed"              # rollout crashed or produced nothing
    JUDGED = "judged"
    ADMITTED = "admitted"
    REJECTED = "rejected"          # judged, Q at or below the threshold
    DISCARDED = "discarded"        # degenerate tool use (cleaning)


class Trajectory(BaseModel):
    model_config = ConfigDict(extra="forbid")

    schema_version: Literal[1] = 1
    trajectory_id: str
    spec_id: str | None = None
    scaffold: str  # "graphforge-loop" | "oracle" | "codex" | "openhands" | "claude-code" | "openai-messages"
    model: str  # "oracle (rule-based)" for the graph oracle
    messages: list[Message]
    tools: list[dict[str, object]] = Field(default_factory=list)  # OpenAI tool schemas offered
    steps: int = 0  # assistant messages
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    deliverables: list[DeliverableFile] = Field(default_factory=list)
    status: TrajectoryStatus = TrajectoryStatus.MATERIALISED
    source: str = ""  # importer or runner that produced it, with the source file when imported

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

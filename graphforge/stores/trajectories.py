"""Persist and read back trajectories and judgments (shared by rollouts, importers, judge, export)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence

from pydantic import BaseModel

from graphforge.graphdb import cypher
from graphforge.graphdb.graph import Graph
from graphforge.models.base import Row
from graphforge.models.judge import Judgment
from graphforge.models.trajectory import DeliverableFile, Message, Trajectory, TrajectoryStatus

MERGE_TRAJECTORIES = cypher.load("trajectories/merge_trajectories")
GET_TRAJECTORIES = cypher.load("trajectories/get_trajectories")
GET_DELIVERABLES = cypher.load("trajectories/get_deliverables")
MERGE_TRAJECTORY_STATUS = cypher.load("trajectories/merge_trajectory_status")
MERGE_JUDGMENTS = cypher.load("judge/merge_judgments")


class TrajectoryRow(Row):
    trajectory_id: str
    spec_id: str | None
    scaffold: str
    model: str
    steps: int
    prompt_tokens: int
    completion_tokens: int
    tokens: int
    cost_usd: float
    status: str
    source: str
    messages_json: str
    tools_json: str
    deliverables_json: str
    final_message: str = ""  # the last assistant message's text: the judge reads it, not the transcript

    @classmethod
    def of(cls, t: Trajectory) -> TrajectoryRow:
        return cls(trajectory_id=t.trajectory_id, spec_id=t.spec_id, scaffold=t.scaffold, model=t.model,
                   steps=t.steps, prompt_tokens=t.prompt_tokens, completion_tokens=t.completion_tokens,
                   tokens=t.tokens, cost_usd=t.cost_usd, status=t.status.value, source=t.source,
                   messages_json=_dumps([m.model_dump(mode="json", exclude_none=True) for m in t.messages]),
                   tools_json=_dumps(t.tools),
                   deliverables_json=_dumps([d.model_dump(mode="json") for d in t.deliverables]),
                   final_message=final_message(t.messages))

    def to_model(self) -> Trajectory:
        return Trajectory(trajectory_id=self.trajectory_id, spec_id=self.spec_id, scaffold=self.scaffold,
                          model=self.model, steps=self.steps, prompt_tokens=self.prompt_tokens,
                          completion_tokens=self.completion_tokens, cost_usd=self.cost_usd,
                          status=TrajectoryStatus(self.status), source=self.source,
                          messages=[Message.model_validate(m) for m in json.loads(self.messages_json)],
                          tools=json.loads(self.tools_json),
                          deliverables=[DeliverableFile.model_validate(d)
                                        for d in json.loads(self.deliverables_json)])


def final_message(messages: Sequence[Message]) -> str:
    """The text of the last assistant message that has some ("" when none has)."""
    return next((m.content for m in reversed(messages) if m.role == "assistant" and m.content), "")


class DeliverablesRow(Row):
    """A trajectory as judging reads it: its spec, deliverables and final message, without the transcript."""

    trajectory_id: str
    spec_id: str | None
    deliverables_json: str
    final_message: str | None = None
    messages_json: str | None = None  # only for a trajectory stored before its final message was

    @property
    def last_message(self) -> str:
        if self.final_message is not None:
            return self.final_message
        raw = json.loads(self.messages_json or "[]")
        return final_message([Message.model_validate(m) for m in raw])

    @property
    def deliverables(self) -> list[DeliverableFile]:
        return [DeliverableFile.model_validate(d) for d in json.loads(self.deliverables_json)]


class StatusRow(Row):
    trajectory_id: str
    status: str
    reason: str


class RatingRow(BaseModel):
    criterion_id: str
    polarity: str
    weight: float
    score: float
    verifier: str
    evidence: str


class JudgmentRow(Row):
    judgment_id: str
    trajectory_id: str
    spec_id: str
    judge: str
    arm: str
    q: float
    deliverables_ok: bool
    reason: str
    ratings_json: str
    ratings: list[RatingRow]

    @classmethod
    def of(cls, j: Judgment) -> JudgmentRow:
        ratings = [RatingRow.model_validate(r.model_dump()) for r in j.ratings]
        return cls(judgment_id=j.judgment_id, trajectory_id=j.trajectory_id, spec_id=j.spec_id, judge=j.judge,
                   arm=j.arm.value, q=j.q, deliverables_ok=j.deliverables_ok, reason=j.reason,
                   ratings_json=_dumps([r.model_dump() for r in ratings]), ratings=ratings)


def _dumps(value: object) -> str:
    # Sorted keys and fixed separators: the same trajectory always stores the same bytes.
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def save_trajectories(graph: Graph, trajectories: Iterable[Trajectory]) -> int:
    return graph.write(MERGE_TRAJECTORIES, (TrajectoryRow.of(t) for t in trajectories))


def get_trajectories(graph: Graph, trajectory_ids: Sequence[str]) -> list[Trajectory]:
    rows = graph.read(GET_TRAJECTORIES, TrajectoryRow, trajectory_ids=list(trajectory_ids))
    return [r.to_model() for r in rows]


def iter_trajectories(graph: Graph, trajectory_ids: Sequence[str], batch: int = 100) -> Iterator[Trajectory]:
    """``get_trajectories`` a batch at a time: a stage that reads transcripts holds ``batch`` of them, not
    every one (at the paper's 162k tokens a transcript, a whole run's logs do not fit in memory)."""
    ids = list(trajectory_ids)
    for start in range(0, len(ids), batch):
        yield from get_trajectories(graph, ids[start:start + batch])


def get_deliverables(graph: Graph, trajectory_ids: Sequence[str]) -> list[DeliverablesRow]:
    """Spec and deliverables of each trajectory, without its messages (what the judge scores)."""
    return graph.read(GET_DELIVERABLES, DeliverablesRow, trajectory_ids=list(trajectory_ids))


def set_status(graph: Graph, decisions: Iterable[tuple[str, TrajectoryStatus, str]]) -> int:
    """Record (trajectory_id, status, reason) decisions."""
    return graph.write(MERGE_TRAJECTORY_STATUS,
                       (StatusRow(trajectory_id=t, status=s.value, reason=r) for t, s, r in decisions))


def save_judgments(graph: Graph, judgments: Iterable[Judgment]) -> int:
    return graph.write(MERGE_JUDGMENTS, (JudgmentRow.of(j) for j in judgments))

"""Trajectories and judgments round-trip through the graph."""

from __future__ import annotations

import pytest

from graphforge.graphdb import chores
from graphforge.graphdb.graph import Graph
from graphforge.models.judge import CriterionRating, JudgeArm, Judgment, q_score
from graphforge.models.trajectory import FunctionCall, Message, ToolCall, Trajectory, TrajectoryStatus
from graphforge.stores import trajectories as store

pytestmark = pytest.mark.neo4j


def _trajectory(tid: str) -> Trajectory:
    call = ToolCall(id="c1", function=FunctionCall(name="read_file", arguments='{"path": "a.csv"}'))
    return Trajectory(trajectory_id=tid, spec_id="s@v1", scaffold="oracle", model="oracle (rule-based)",
                      messages=[Message(role="user", content="do it"),
                                Message(role="assistant", tool_calls=[call]),
                                Message(role="tool", tool_call_id="c1", content="a,b\n1,2")],
                      steps=1, prompt_tokens=10, completion_tokens=5)


def test_trajectory_round_trip_and_idempotent_save(graph: Graph) -> None:
    t = _trajectory("t1")
    assert store.save_trajectories(graph, [t]) == 1
    store.save_trajectories(graph, [t])
    assert chores.counts(graph).nodes["Trajectory"] == 1
    assert store.get_trajectories(graph, ["t1"]) == [t]
    store.set_status(graph, [("t1", TrajectoryStatus.ADMITTED, "Q=0.97 > 0.90")])
    assert store.get_trajectories(graph, ["t1"])[0].status is TrajectoryStatus.ADMITTED


def test_judgment_is_linked_to_its_trajectory(graph: Graph) -> None:
    store.save_trajectories(graph, [_trajectory("t2")])
    ratings = [CriterionRating(criterion_id="s@v1/c1", polarity="positive", weight=2, score=1.0,
                               verifier="deterministic", evidence="found 12.5 at Summary!B2"),
               CriterionRating(criterion_id="s@v1/c2", polarity="negative", weight=1, score=1.0,
                               verifier="deterministic", evidence="confuser figure used")]
    judgment = Judgment(
        judgment_id="j1",
        trajectory_id="t2",
        spec_id="s@v1",
        judge="anchored",
        arm=JudgeArm.ANCHORED,
        q=q_score(ratings),
        deliverables_ok=True,
        ratings=ratings,
    )
    assert judgment.q == pytest.approx(0.5)
    assert store.save_judgments(graph, [judgment]) == 1
    counts = chores.counts(graph)
    assert counts.relationships["SCORES"] == 1
    # No Criterion nodes exist in this test, so no RATES edges are invented.
    assert "RATES" not in counts.relationships

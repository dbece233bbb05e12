"""Human-review verdicts as the graph keeps them, and what admission and export do with them.

Each verdict is a ``(:Review)-[:REVIEWS]->(:TaskSpec|:Criterion)`` node (reviewer, time, tool, the
annotation it came from); the latest one per spec or criterion is also set on the node as
``review_verdict`` ('accepted' | 'rejected' | 'edited'), ``review_text``, ``reviewed_by``, ``reviewed_at``.

- A rejected spec is not used: admission rejects its trajectories, no export writes it.
- A rejected criterion is not used: it is dropped from the exported rubric and left out of Q at admission.
- An edited criterion's requirement is the reviewer's text in the exported rubric.
- Unreviewed specs are used unless an export is asked for reviewed specs only.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field

from graphforge.graphdb import cypher
from graphforge.graphdb.graph import Graph
from graphforge.models.base import Row
from graphforge.models.judge import CriterionRating, q_score
from graphforge.models.spec import TaskSpec

MERGE_REVIEWS = cypher.load("review/merge_reviews")
SET_CURRENT_REVIEWS = cypher.load("review/set_current_reviews")
GET_REVIEW_TARGETS = cypher.load("review/get_review_targets")
GET_REVIEW_VERDICTS = cypher.load("review/get_review_verdicts")
GET_REVIEW_COUNTS = cypher.load("review/get_review_counts")

ACCEPTED, REJECTED, EDITED = "accepted", "rejected", "edited"


class ReviewRow(Row):
    review_id: str
    target_kind: str  # "spec" | "criterion"
    target_id: str
    spec_id: str
    verdict: str  # "accept" | "reject" | "edit"
    text: str | None
    seen_text: str | None
    reviewer: str
    reviewed_at: str  # ISO 8601
    tool: str
    source: str  # the Label Studio URL and project, or the export file
    annotation: str
    ls_task: int | None
    ls_project: int | None


class CriterionReview(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    criterion_id: str
    verdict: str
    text: str | None = None
    reviewer: str | None = None


class SpecReview(BaseModel):
    """A spec's current review state: its own verdict (None: unreviewed) and its criteria's verdicts."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    spec_id: str
    verdict: str | None = None
    reviewer: str | None = None
    reviewed_at: str | None = None
    criteria: list[CriterionReview] = Field(default_factory=list)

    @property
    def rejected(self) -> bool:
        return self.verdict == REJECTED

    @property
    def reviewed(self) -> bool:
        return self.verdict is not None

    @property
    def rejected_criteria(self) -> set[str]:
        return {c.criterion_id for c in self.criteria if c.verdict == REJECTED}

    @property
    def edited_criteria(self) -> dict[str, str]:
        return {c.criterion_id: c.text for c in self.criteria if c.verdict == EDITED and c.text}

    def reason(self) -> str:
        """Why the spec is not used, in words."""
        if self.rejected:
            return f"spec rejected in human review by {self.reviewer or 'a reviewer'}"
        return "spec not reviewed yet (reviewed specs only)"


def write_reviews(graph: Graph, rows: Iterable[ReviewRow]) -> int:
    """Store verdicts (idempotent: a re-import of the same annotations writes the same nodes) and put the
    latest one on each spec and criterion they concern; returns the number of Review nodes written."""
    rows = list(rows)
    written = graph.write(MERGE_REVIEWS, rows)
    spec_ids = sorted({r.spec_id for r in rows})
    if spec_ids:
        graph.execute(SET_CURRENT_REVIEWS, spec_ids=spec_ids)
    return written


def review_targets(graph: Graph, spec_ids: list[str]) -> dict[str, dict[str, str]]:
    """spec_id -> {criterion_id: requirement} for the given specs the graph holds."""
    rows = graph.read_dicts(GET_REVIEW_TARGETS, spec_ids=spec_ids)
    return {str(r["spec_id"]): {str(c["criterion_id"]): str(c["requirement"]) for c in r["criteria"]}
            for r in rows}


def review_states(graph: Graph, spec_ids: list[str] | None = None) -> dict[str, SpecReview]:
    """spec_id -> its review state, for the given specs (None: every spec)."""
    return {str(r["spec_id"]): SpecReview.model_validate(r)
            for r in graph.read_dicts(GET_REVIEW_VERDICTS, spec_ids=spec_ids)}


class ReviewPolicy(BaseModel):
    """Which specs an export may use: never a rejected one; an unreviewed one unless reviewed_only."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    reviewed_only: bool = False

    def excluded(self, graph: Graph) -> dict[str, str]:
        """spec_id -> why it is not used (rejected, or unreviewed under reviewed_only)."""
        return {sid: state.reason() for sid, state in review_states(graph).items()
                if state.rejected or (self.reviewed_only and not state.reviewed)}


def reviewed_spec(spec: TaskSpec, state: SpecReview | None) -> TaskSpec:
    """The spec as reviewers left it: rejected criteria dropped, edited requirements replaced."""
    if state is None or not state.criteria:
        return spec
    rejected, edited = state.rejected_criteria, state.edited_criteria
    criteria = [c.model_copy(update={"requirement": edited[c.criterion_id]})
                if c.criterion_id in edited else c
                for c in spec.criteria if c.criterion_id not in rejected]
    return spec.model_copy(update={"criteria": criteria})


def reviewed_q(ratings: list[CriterionRating], rejected: set[str]) -> float:
    """Q over the criteria reviewers kept (a rejected criterion neither adds nor subtracts)."""
    return q_score([r for r in ratings if r.criterion_id not in rejected])


def review_counts(graph: Graph) -> list[dict[str, object]]:
    """Current specs per verdict ('accepted', 'rejected', 'unreviewed') with their criteria's verdicts."""
    return [dict(r) for r in graph.read_dicts(GET_REVIEW_COUNTS)]

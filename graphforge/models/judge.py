"""Judgments: per-criterion ratings with evidence, and the Q score."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class JudgeArm(StrEnum):
    ANCHORED = "anchored"      # anchors + expected values + verification procedure
    UNANCHORED = "unanchored"  # criterion text only
    RANDOM = "random"          # a random score (control arm for RFT selection)


class CriterionRating(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    criterion_id: str
    polarity: Literal["positive", "negative"]
    weight: float
    score: float = Field(ge=0, le=1)  # a_k for positive, v_j in {0, 1} for negative
    verifier: str  # "deterministic" | "llm:<model>" | "random"
    evidence: str  # what was found where, so a person can see why


class Judgment(BaseModel):
    model_config = ConfigDict(extra="forbid")

    schema_version: Literal[1] = 1
    judgment_id: str
    trajectory_id: str
    spec_id: str
    judge: str
    arm: JudgeArm
    q: float  # raw; may be < 0
    deliverables_ok: bool
    reason: str = ""
    ratings: list[CriterionRating] = Field(default_factory=list)


def q_score(ratings: list[CriterionRating]) -> float:
    """Q = (Σ_{R+} w·a − Σ_{R−} λ·v) / Σ_{R+} w, raw."""
    pos = [r for r in ratings if r.polarity == "positive"]
    neg = [r for r in ratings if r.polarity == "negative"]
    total = sum(r.weight for r in pos)
    if total <= 0:
        return 0.0
    return (sum(r.weight * r.score for r in pos) - sum(r.weight * r.score for r in neg)) / total

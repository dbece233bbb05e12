"""Judge one attempt: deterministic deliverable checks first, then every criterion, then Q."""

from __future__ import annotations

import random
from pathlib import Path
from typing import TYPE_CHECKING

from graphforge.judge.checks import DeliverableReport, check_deliverables
from graphforge.judge.documents import Document
from graphforge.judge.llm_verifier import verify_with_llm
from graphforge.judge.locations import parse_location
from graphforge.judge.regions import lines
from graphforge.judge.verifiers import Verdict, verify
from graphforge.judge.view import JudgeView
from graphforge.models.base import stable_hash
from graphforge.models.judge import CriterionRating, JudgeArm, Judgment, q_score
from graphforge.models.spec import CriterionKind, CriterionSpec, Polarity

if TYPE_CHECKING:
    from graphforge.llm import OpenAICompatibleChatModel

JUDGE_NAME = "graphforge-judge"


def judge_name(llm: OpenAICompatibleChatModel | None) -> str:
    """Names the verifiers used: deterministic always, the chat model for qualitative criteria when set."""
    return (
        f"{JUDGE_NAME} (deterministic + llm:{llm.model})"
        if llm is not None
        else f"{JUDGE_NAME} (deterministic)"
    )


def judgment_id(trajectory_id: str, spec_id: str, arm: JudgeArm, seed: int) -> str:
    return f"j-{stable_hash(trajectory_id, spec_id, arm.value, seed)}"


def score_criteria(view: JudgeView, documents: dict[str, Document], arm: JudgeArm, *,
                   llm: OpenAICompatibleChatModel | None = None, seed: int = 0,
                   trajectory_id: str = "") -> dict[str, Verdict]:
    """A verdict per criterion of the spec (no deliverable gate: the sensitivity study uses this directly)."""
    verdicts: dict[str, Verdict] = {}
    for criterion in view.spec.criteria:
        if arm is JudgeArm.RANDOM:
            verdicts[criterion.criterion_id] = _random(criterion, seed, trajectory_id)
            continue
        doc = documents.get(criterion.target_deliverable)
        if criterion.kind is CriterionKind.QUALITATIVE and llm is not None and doc is not None:
            verdicts[criterion.criterion_id] = _llm(llm, criterion, view, doc, arm)
        else:
            verdicts[criterion.criterion_id] = verify(criterion, arm, view, doc)
    return verdicts


def _random(criterion: CriterionSpec, seed: int, trajectory_id: str) -> Verdict:
    rng = random.Random(stable_hash(seed, trajectory_id, criterion.criterion_id))
    if criterion.polarity is Polarity.NEGATIVE:
        return Verdict(float(rng.random() < 0.5), f"random arm (seed {seed})", verifier="random")
    return Verdict(round(rng.random(), 4), f"random arm (seed {seed})", verifier="random")


def _llm(llm: OpenAICompatibleChatModel, criterion: CriterionSpec, view: JudgeView, doc: Document,
         arm: JudgeArm) -> Verdict:
    region = lines(doc, parse_location(criterion.target_location), criterion.target_deliverable)
    excerpt = "\n".join(f"[{line.where}] {line.text}" for line in region)
    footprint = frozenset(item for line in region for item in line.footprint)
    anchored = arm is JudgeArm.ANCHORED
    return verify_with_llm(llm, criterion, excerpt, view.anchors_of(criterion) if anchored else [], anchored,
                           footprint)


def ratings_of(view: JudgeView, verdicts: dict[str, Verdict]) -> list[CriterionRating]:
    return [CriterionRating(criterion_id=c.criterion_id, polarity=c.polarity.value, weight=c.weight,
                            score=verdicts[c.criterion_id].score, verifier=verdicts[c.criterion_id].verifier,
                            evidence=verdicts[c.criterion_id].evidence)
            for c in view.spec.criteria]


def judge_attempt(
    view: JudgeView,
    files: dict[str, Path],
    arm: JudgeArm,
    *,
    trajectory_id: str,
    llm: OpenAICompatibleChatModel | None = None,
    seed: int = 0,
) -> tuple[Judgment, DeliverableReport]:
    """Check the deliverables; a missing or invalid one is a loss (Q = 0) and no criterion is scored."""
    report, documents = check_deliverables(view.spec, files)
    jid = judgment_id(trajectory_id, view.spec.spec_id, arm, seed)
    name = judge_name(llm if arm is not JudgeArm.RANDOM else None)
    if arm is JudgeArm.RANDOM:
        name = f"{JUDGE_NAME} (random, seed {seed})"
    if not report.ok:
        return Judgment(judgment_id=jid, trajectory_id=trajectory_id, spec_id=view.spec.spec_id, judge=name,
                        arm=arm, q=0.0, deliverables_ok=False,
                        reason=f"loss, judge not asked: {report.reason}"), report
    verdicts = score_criteria(view, documents, arm, llm=llm, seed=seed, trajectory_id=trajectory_id)
    ratings = ratings_of(view, verdicts)
    q = q_score(ratings)
    failed = [r.criterion_id.rsplit("/", 1)[-1] for r in ratings
              if (r.polarity == "positive" and r.score < 1) or (r.polarity == "negative" and r.score > 0)]
    reason = f"Q = {q:.3f}" + (
        f"; not met or violated: {', '.join(failed)}" if failed else "; every criterion met"
    )
    return Judgment(
        judgment_id=jid,
        trajectory_id=trajectory_id,
        spec_id=view.spec.spec_id,
        judge=name,
        arm=arm,
        q=round(q, 6),
        deliverables_ok=True,
        reason=reason,
        ratings=ratings,
    ), report

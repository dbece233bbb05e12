"""Judge attempts: deterministic deliverable checks first, then every criterion, then Q.

Arms (the paper's judge):
- anchored: with a chat model, the model grades every criterion with its anchors (cited spans and values),
  and the deterministic verifier is a gate: a verdict is never more favourable than the verifier's (a
  positive criterion scores at most what the verifier found, a negative one at least; a qualitative
  criterion scores only when its target holds substance). Without a chat model, the verifiers alone.
- unanchored: the same chat-model judge without anchors, procedure or expected values (no gate: the gate
  is made of anchors). Without a chat model, the deterministic unanchored checks.
- random: a seeded random score per criterion (the control arm).

Candidates of one query (the K rollouts of one spec) are judged jointly: one call per criterion grades all
of them side by side. A verdict the model could not give raises ``VerdictUnavailable``; it is never a score.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from graphforge.judge.checks import DeliverableReport, check_deliverables
from graphforge.judge.documents import Document, Workbook
from graphforge.judge.llm_verifier import ModelVerdict, VerdictUnavailable, aask_verdicts
from graphforge.judge.locations import Location, parse_location
from graphforge.judge.regions import Footprint, lines
from graphforge.judge.standing import FINAL_MESSAGE, is_standing, message_document, with_standing
from graphforge.judge.verdicts import Verdict
from graphforge.judge.verifiers import verify
from graphforge.judge.view import JudgeView
from graphforge.models.base import stable_hash
from graphforge.models.judge import CriterionRating, JudgeArm, Judgment, q_score
from graphforge.models.spec import CriterionKind, CriterionSpec, Polarity

if TYPE_CHECKING:
    from graphforge.llm import LLMCallRecord, OpenAICompatibleChatModel

__all__ = ["JUDGE_NAME", "VerdictUnavailable", "ajudge_candidates", "ascore_candidates", "judge_attempt",
           "judge_candidates", "judge_name", "judgment_id", "ratings_of", "score_candidates",
           "score_criteria"]

JUDGE_NAME = "graphforge-judge"
MAX_EXCERPT_LINES = 200


def judge_name(llm: OpenAICompatibleChatModel | None, arm: JudgeArm = JudgeArm.ANCHORED,
               seed: int = 0) -> str:
    """Names the verifiers used for an arm."""
    if arm is JudgeArm.RANDOM:
        return f"{JUDGE_NAME} (random, seed {seed})"
    if llm is None:
        return f"{JUDGE_NAME} (deterministic)"
    if arm is JudgeArm.ANCHORED:
        return f"{JUDGE_NAME} (llm:{llm.model} with anchors, deterministic gate)"
    return f"{JUDGE_NAME} (llm:{llm.model} without anchors)"


def judgment_id(trajectory_id: str, spec_id: str, arm: JudgeArm, seed: int) -> str:
    return f"j-{stable_hash(trajectory_id, spec_id, arm.value, seed)}"


def _random(criterion: CriterionSpec, seed: int, trajectory_id: str) -> Verdict:
    rng = random.Random(stable_hash(seed, trajectory_id, criterion.criterion_id))
    if criterion.polarity is Polarity.NEGATIVE:
        return Verdict(float(rng.random() < 0.5), f"random arm (seed {seed})", verifier="random")
    return Verdict(round(rng.random(), 4), f"random arm (seed {seed})", verifier="random")


def excerpt(criterion: CriterionSpec, doc: Document) -> tuple[str, Footprint]:
    """What the chat model reads for a criterion (its target with enough context) and the target's footprint.

    Workbook cells are shown as ``B4 = value`` with their formula; a cell target brings its whole row and
    the sheet's first row (labels and headers); a report target is its section.
    """
    name = criterion.target_deliverable
    loc = parse_location(criterion.target_location)
    region = lines(doc, loc, name)
    footprint = frozenset(item for line in region for item in line.footprint)
    if isinstance(doc, Workbook):
        return _workbook_excerpt(doc, loc), footprint
    text = "\n".join(f"[{line.where}] {line.text}" for line in region[:MAX_EXCERPT_LINES])
    if not region:
        text = f"(nothing at {loc.raw or 'the deliverable'})"
    return text, footprint


def _workbook_excerpt(doc: Workbook, loc: Location) -> str:
    ev = doc.evaluator
    sheets = [ev.sheet_name(loc.sheet)] if loc.sheet is not None else list(doc.order)
    if loc.sheet is not None and sheets == [None]:
        return f"(the workbook has no sheet {loc.sheet!r}; its sheets: {', '.join(doc.order)})"
    targets = set(loc.cells)
    out: list[str] = []
    precedents: set[tuple[str, str]] = set()
    for sheet in (s for s in sheets if s is not None):
        data = doc.sheets[sheet]
        rows: dict[int, list[str]] = {}
        for ref in data:
            rows.setdefault(_row_number(ref), []).append(ref)
        wanted = {_row_number(c) for c in targets}
        keep = sorted(rows) if not wanted else sorted(r for r in rows if r in wanted or r == min(rows))
        out.append(f"sheet {sheet!r}:")
        for row in keep[:MAX_EXCERPT_LINES]:
            shown = []
            for ref in sorted(rows[row], key=lambda c: (len(c.rstrip("0123456789")), c)):
                shown.append(("*" if ref in targets else "") + _cell_shown(doc, sheet, ref, precedents))
            out.append("  " + " | ".join(shown))
    # What the target formulas read, so the judge sees the figures a formula rests on (and their changes).
    extra = sorted(p for p in precedents if p[0] in doc.sheets and (p[0] not in sheets or (
        targets and _row_number(p[1]) not in {_row_number(c) for c in targets})))
    if extra:
        out.append("cells the shown formulas read:")
        out += [f"  {sheet}!{_cell_shown(doc, sheet, ref, set())}" for sheet, ref in extra[:40]]
    if targets:
        out.append(f"(* marks the target cells {', '.join(loc.cells)})")
    return "\n".join(out)


def _row_number(ref: str) -> int:
    return int("".join(ch for ch in ref if ch.isdigit()) or 0)


def _cell_shown(doc: Workbook, sheet: str, ref: str, precedents: set[tuple[str, str]]) -> str:
    """``B4 = 469.5 (formula =B2-B3)``: a formula's value is computed when the file holds none."""
    cell = doc.sheets[sheet].get(ref)
    if cell is None:
        return f"{ref} = (empty)"
    if not cell.formula:
        return f"{ref} = {'' if cell.value is None else cell.value}"
    value = cell.value
    found = doc.evaluator.evaluate(sheet, ref)  # errors come back as data (source "error")
    precedents |= {p for p in found.precedents if p != (sheet, ref)}
    if value is None:
        value = found.value if found.value is not None else f"(not computable: {found.error or 'empty'})"
    return f"{ref} = {value} (formula {cell.formula})"


def _gate(criterion: CriterionSpec, model: ModelVerdict, det: Verdict, footprint: Footprint,
          name: str) -> Verdict:
    """The model's verdict, never more favourable than the deterministic verifier's."""
    if criterion.kind is CriterionKind.QUALITATIVE:
        # The proxy cannot grade prose; it only says whether the target holds substance at all.
        held = det.score > 0 or criterion.polarity is Polarity.NEGATIVE
        score = model.score if held else 0.0
        gate = "passed" if held else f"closed ({det.evidence})"
    elif criterion.polarity is Polarity.NEGATIVE:
        score = max(model.score, det.score)
        gate = f"deterministic {det.score:g}: {det.evidence}"
    else:
        score = min(model.score, det.score)
        gate = f"deterministic {det.score:g}: {det.evidence}"
    evidence = f"{model.evidence} [gate: {gate}]"
    return Verdict(score, evidence[:800], det.footprint or footprint, f"llm:{name}+deterministic-gate")


async def ascore_candidates(view: JudgeView, documents: Sequence[dict[str, Document]], arm: JudgeArm, *,
                            llm: OpenAICompatibleChatModel | None = None, seed: int = 0,
                            trajectory_ids: Sequence[str] = (),
                            ledger: list[LLMCallRecord] | None = None) -> list[dict[str, Verdict]]:
    """A verdict per criterion for each candidate (no deliverable gate: the sensitivity study uses this).

    With a chat model, each criterion is one call grading every candidate that has the target deliverable;
    the calls of all criteria run concurrently (GRAPHFORGE_LLM_CONCURRENCY caps them). Raises
    ``VerdictUnavailable`` (naming every criterion without a verdict) when the model gives none for some.
    """
    view = with_standing(view)
    ids = list(trajectory_ids) or [str(i) for i in range(len(documents))]
    out: list[dict[str, Verdict]] = [{} for _ in documents]
    asks: list[Awaitable[None]] = []
    for criterion in view.spec.criteria:
        cid = criterion.criterion_id
        if arm is JudgeArm.RANDOM:
            for i in range(len(documents)):
                out[i][cid] = _random(criterion, seed, ids[i])
            continue
        docs = [d.get(criterion.target_deliverable) for d in documents]
        det = [verify(criterion, arm, view, doc) for doc in docs]
        for i in range(len(documents)):
            out[i][cid] = det[i]  # the verifier's verdict; replaced below where the model grades
        present = [i for i, doc in enumerate(docs) if doc is not None]
        # Standing criteria stay deterministic: a model must not rule on text addressed to it.
        if llm is not None and present and not is_standing(criterion):
            asks.append(_ask(llm, view, criterion, arm, [(i, docs[i]) for i in present], det, out, ledger))
    answers = await asyncio.gather(*asks, return_exceptions=True)
    failures = [r for r in answers if isinstance(r, BaseException)]
    if failures:
        other = next((f for f in failures if not isinstance(f, VerdictUnavailable)), None)
        if other is not None:
            raise other
        unavailable = [f for f in failures if isinstance(f, VerdictUnavailable)]
        raise VerdictUnavailable([c for f in unavailable for c in f.criterion_ids], unavailable[0].reason)
    return out


async def _ask(llm: OpenAICompatibleChatModel, view: JudgeView, criterion: CriterionSpec, arm: JudgeArm,
               present: list[tuple[int, Document | None]], det: list[Verdict], out: list[dict[str, Verdict]],
               ledger: list[LLMCallRecord] | None) -> None:
    shown = [excerpt(criterion, doc) for _, doc in present if doc is not None]
    where = f"{criterion.target_deliverable} at {criterion.target_location or 'anywhere'}"
    anchored = arm is JudgeArm.ANCHORED
    verdicts = await aask_verdicts(llm, criterion, [(where, text) for text, _ in shown],
                                   view.anchors_of(criterion) if anchored else [], anchored, ledger)
    # A verdict rests on what the verifier found (the line or cells of the figure) where it found it, else on
    # the whole excerpt the model read: the sensitivity study perturbs there.
    for (i, _), (_, footprint), verdict in zip(present, shown, verdicts, strict=True):
        if anchored:
            out[i][criterion.criterion_id] = _gate(criterion, verdict, det[i], footprint, llm.model)
        else:
            out[i][criterion.criterion_id] = Verdict(verdict.score, verdict.evidence,
                                                     det[i].footprint or footprint, f"llm:{llm.model}")


def score_candidates(view: JudgeView, documents: Sequence[dict[str, Document]], arm: JudgeArm, *,
                     llm: OpenAICompatibleChatModel | None = None, seed: int = 0,
                     trajectory_ids: Sequence[str] = (),
                     ledger: list[LLMCallRecord] | None = None) -> list[dict[str, Verdict]]:
    """``ascore_candidates`` from synchronous code."""
    return asyncio.run(ascore_candidates(view, documents, arm, llm=llm, seed=seed,
                                         trajectory_ids=trajectory_ids, ledger=ledger))


def score_criteria(view: JudgeView, documents: dict[str, Document], arm: JudgeArm, *,
                   llm: OpenAICompatibleChatModel | None = None, seed: int = 0,
                   trajectory_id: str = "", ledger: list[LLMCallRecord] | None = None) -> dict[str, Verdict]:
    """A verdict per criterion of one attempt (raises ``VerdictUnavailable``)."""
    return score_candidates(view, [documents], arm, llm=llm, seed=seed, trajectory_ids=[trajectory_id],
                            ledger=ledger)[0]


def ratings_of(view: JudgeView, verdicts: dict[str, Verdict]) -> list[CriterionRating]:
    return [CriterionRating(criterion_id=c.criterion_id, polarity=c.polarity.value, weight=c.weight,
                            score=verdicts[c.criterion_id].score, verifier=verdicts[c.criterion_id].verifier,
                            evidence=verdicts[c.criterion_id].evidence)
            for c in view.spec.criteria]


def _judgment(view: JudgeView, trajectory_id: str, arm: JudgeArm, seed: int, name: str,
              verdicts: dict[str, Verdict]) -> Judgment:
    ratings = ratings_of(view, verdicts)
    q = q_score(ratings)
    failed = [r.criterion_id.rsplit("/", 1)[-1] for r in ratings
              if (r.polarity == "positive" and r.score < 1) or (r.polarity == "negative" and r.score > 0)]
    reason = f"Q = {q:.3f}" + (
        f"; not met or violated: {', '.join(failed)}" if failed else "; every criterion met"
    )
    return Judgment(judgment_id=judgment_id(trajectory_id, view.spec.spec_id, arm, seed),
                    trajectory_id=trajectory_id, spec_id=view.spec.spec_id, judge=name, arm=arm,
                    q=round(q, 6), deliverables_ok=True, reason=reason, ratings=ratings)


async def ajudge_candidates(
    view: JudgeView,
    candidates: Sequence[tuple[str, dict[str, Path]]],
    arm: JudgeArm,
    *,
    llm: OpenAICompatibleChatModel | None = None,
    seed: int = 0,
    ledger: list[LLMCallRecord] | None = None,
    final_messages: Mapping[str, str] | None = None,
) -> list[tuple[Judgment, DeliverableReport]]:
    """Judge the candidates (trajectory id, deliverable files) of one spec together.

    A candidate with a missing or invalid deliverable is a loss (Q = 0) and is not shown to the judge; the
    others are graded jointly. ``final_messages`` (trajectory id -> the agent's last message) are read for
    text addressed to the grader. Raises ``VerdictUnavailable`` (nothing is judged) when the model fails.
    """
    name = judge_name(llm if arm is not JudgeArm.RANDOM else None, arm, seed)
    view = with_standing(view)  # every spec is held to the standing negatives, however old
    checked = [(tid, *check_deliverables(view.spec, files)) for tid, files in candidates]
    for tid, _, docs in checked:
        message = (final_messages or {}).get(tid)
        if message:
            docs[FINAL_MESSAGE] = message_document(message)
    valid = [(tid, docs) for tid, report, docs in checked if report.ok]
    verdicts = await ascore_candidates(view, [docs for _, docs in valid], arm, llm=llm, seed=seed,
                                       trajectory_ids=[tid for tid, _ in valid],
                                       ledger=ledger) if valid else []
    scored = dict(zip([tid for tid, _ in valid], verdicts, strict=True))
    out: list[tuple[Judgment, DeliverableReport]] = []
    for tid, report, _ in checked:
        if not report.ok:
            loss = Judgment(judgment_id=judgment_id(tid, view.spec.spec_id, arm, seed), trajectory_id=tid,
                            spec_id=view.spec.spec_id, judge=name, arm=arm, q=0.0, deliverables_ok=False,
                            reason=f"loss, judge not asked: {report.reason}")
            out.append((loss, report))
        else:
            out.append((_judgment(view, tid, arm, seed, name, scored[tid]), report))
    return out


def judge_candidates(
    view: JudgeView,
    candidates: Sequence[tuple[str, dict[str, Path]]],
    arm: JudgeArm,
    *,
    llm: OpenAICompatibleChatModel | None = None,
    seed: int = 0,
    ledger: list[LLMCallRecord] | None = None,
    final_messages: Mapping[str, str] | None = None,
) -> list[tuple[Judgment, DeliverableReport]]:
    """``ajudge_candidates`` from synchronous code."""
    return asyncio.run(ajudge_candidates(view, candidates, arm, llm=llm, seed=seed, ledger=ledger,
                                         final_messages=final_messages))


def judge_attempt(
    view: JudgeView,
    files: dict[str, Path],
    arm: JudgeArm,
    *,
    trajectory_id: str,
    llm: OpenAICompatibleChatModel | None = None,
    seed: int = 0,
    final_message: str | None = None,
) -> tuple[Judgment, DeliverableReport]:
    """Judge one attempt on its own (raises ``VerdictUnavailable`` when the model gives no verdict)."""
    messages = {trajectory_id: final_message} if final_message else None
    return judge_candidates(view, [(trajectory_id, files)], arm, llm=llm, seed=seed,
                            final_messages=messages)[0]

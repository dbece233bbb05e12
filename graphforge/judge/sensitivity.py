"""Judge sensitivity: how far each perturbation moves the targeted criterion, and how little the rest.

The target's change is the change of the credit it gives: a positive criterion's score, or minus a negative
criterion's (a superseded value stated as current or a note to the grader that fires moves its target by -1).

A case whose judgment could not be obtained (the chat model gave no verdict, before or after the
perturbation) has no score: it is listed apart as ``UnscoredCase`` with the reason, never averaged in."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from graphforge.judge.checks import check_deliverables
from graphforge.judge.core import ascore_candidates, score_criteria
from graphforge.judge.documents import Document, read_document
from graphforge.judge.llm_verifier import VerdictUnavailable
from graphforge.judge.perturb import (
    PAPER_NON_TARGET_ABS,
    PAPER_TARGET_DELTA,
    PerturbationKind,
    Perturbed,
    applicable,
    perturb,
)
from graphforge.judge.regions import overlaps
from graphforge.judge.standing import FIGURE_KINDS, MISSTATED, PARTS, SOURCES, with_standing
from graphforge.judge.verdicts import Verdict
from graphforge.judge.view import JudgeView
from graphforge.models.judge import JudgeArm
from graphforge.models.spec import CriterionKind, CriterionSpec, Polarity

if TYPE_CHECKING:
    from graphforge.llm import LLMCallRecord, OpenAICompatibleChatModel


class SensitivityCase(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    trajectory_id: str
    arm: JudgeArm
    kind: PerturbationKind
    criterion_id: str
    description: str
    target_before: float
    target_after: float
    non_target_deltas: list[float]  # signed change of every criterion the perturbation did not touch
    co_targeted: list[str]  # other criteria resting on the touched cells / lines (excluded from non-target)
    gate_loss: bool  # the deterministic deliverable checks would now make the attempt a loss
    negative: bool = False  # the target is a negative criterion (a superseded value, a note to the grader)

    @property
    def target_delta(self) -> float:
        """The change of the credit the target gives: a negative criterion that fires moves it by -1."""
        moved = self.target_after - self.target_before
        return -moved if self.negative else moved


class UnscoredCase(BaseModel):
    """A (trajectory, arm[, perturbation, criterion]) the judge gave no verdict for: listed, never scored."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    trajectory_id: str
    arm: JudgeArm
    kind: PerturbationKind | None = None  # None: the unperturbed baseline failed, so no case of it was scored
    criterion_id: str | None = None
    reason: str


class SensitivityRow(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    arm: JudgeArm
    kind: PerturbationKind
    cases: int
    target_delta_mean: float
    non_target_abs_mean: float
    non_target_n: int
    gate_loss_rate: float
    paper_target_delta: float | None  # None: the paper has no such row
    paper_non_target_abs: float


def cases_for(view: JudgeView, files: dict[str, Path], arm: JudgeArm, work: Path, *, trajectory_id: str,
              llm: OpenAICompatibleChatModel | None = None,
              kinds: list[PerturbationKind] | None = None, ledger: list[LLMCallRecord] | None = None,
              max_per_kind: int | None = None) -> tuple[list[SensitivityCase], list[UnscoredCase]]:
    """Perturb every applicable (kind, criterion) of one attempt and re-score all criteria (no gate).

    Returns the scored cases and, apart, the cases the judge gave no verdict for. ``max_per_kind`` keeps
    the first cases of each kind (in criterion order): a sample for a judge whose calls are slow.
    """
    import openpyxl

    view = with_standing(view)  # the grader-note perturbations target a standing criterion
    # Baseline copies go through the same writer as the perturbed ones, so only the perturbation differs.
    base_dir = work / "baseline"
    base_dir.mkdir(parents=True, exist_ok=True)
    baseline_files: dict[str, Path] = {}
    for name, path in files.items():
        copy = base_dir / Path(name).name
        if path.suffix.lower() == ".xlsx":
            openpyxl.load_workbook(path).save(copy)
        else:
            shutil.copyfile(path, copy)
        baseline_files[name] = copy
    _, documents = check_deliverables(view.spec, baseline_files)
    try:
        before = score_criteria(view, documents, arm, llm=llm, trajectory_id=trajectory_id, ledger=ledger)
    except VerdictUnavailable as exc:
        return [], [UnscoredCase(trajectory_id=trajectory_id, arm=arm, reason=f"baseline not judged: {exc}")]
    todo: list[tuple[PerturbationKind, CriterionSpec, Perturbed, bool, dict[str, Document]]] = []
    for kind in kinds or list(PerturbationKind):
        for criterion in view.spec.criteria:
            doc = documents.get(criterion.target_deliverable)
            if doc is None or not applicable(kind, criterion):
                continue
            source = baseline_files[criterion.target_deliverable]
            target_path = work / kind.value / criterion.criterion_id.rsplit("/", 1)[-1] / source.name
            result = perturb(kind, criterion, before[criterion.criterion_id], view, source, doc, target_path)
            if result is None:
                continue
            if max_per_kind is not None and sum(k is kind for k, *_ in todo) >= max_per_kind:
                break
            perturbed_files = {**baseline_files, criterion.target_deliverable: result.path}
            report, perturbed_docs = check_deliverables(view.spec, perturbed_files)
            if criterion.target_deliverable not in perturbed_docs:  # still readable without the gate
                perturbed_docs[criterion.target_deliverable] = read_document(result.path, source.suffix)
            todo.append((kind, criterion, result, report.ok, perturbed_docs))

    # Deleting a sheet or slide gives the same copy for every criterion resting on it (a slide holding
    # five figures): that copy is judged once and its verdicts serve each such case.
    def same(kind: PerturbationKind, result: Perturbed, i: int) -> tuple[object, ...]:
        return (kind, result.touched) if kind is PerturbationKind.DELETE_SHEET else (i,)

    distinct: dict[tuple[object, ...], int] = {}  # key -> index in copies
    copies: list[dict[str, Document]] = []
    for i, (kind, _, result, _, docs) in enumerate(todo):
        if same(kind, result, i) not in distinct:
            distinct[same(kind, result, i)] = len(copies)
            copies.append(docs)

    async def rescore_all() -> list[dict[str, Verdict] | VerdictUnavailable]:
        async def one(docs: dict[str, Document]) -> dict[str, Verdict] | VerdictUnavailable:
            try:
                return (await ascore_candidates(view, [docs], arm, llm=llm, trajectory_ids=[trajectory_id],
                                                ledger=ledger))[0]
            except VerdictUnavailable as exc:
                return exc

        # Every perturbed copy at once: the chat model's GRAPHFORGE_LLM_CONCURRENCY caps the calls.
        return list(await asyncio.gather(*(one(docs) for docs in copies)))

    rescored = asyncio.run(rescore_all())
    afters = [rescored[distinct[same(kind, result, i)]] for i, (kind, _, result, _, _) in enumerate(todo)]
    out: list[SensitivityCase] = []
    unscored: list[UnscoredCase] = []
    for (kind, criterion, result, ok, _), after in zip(todo, afters, strict=True):
        if isinstance(after, VerdictUnavailable):
            unscored.append(UnscoredCase(trajectory_id=trajectory_id, arm=arm, kind=kind,
                                         criterion_id=criterion.criterion_id, reason=str(after)))
            continue
        co = [c.criterion_id for c in view.spec.criteria if c.criterion_id != criterion.criterion_id
              and overlaps(before[c.criterion_id].footprint, result.touched)]
        co += mirrored(view, criterion, co)
        co += same_citations(view, criterion, co)
        others = [after[c.criterion_id].score - before[c.criterion_id].score for c in view.spec.criteria
                  if c.criterion_id != criterion.criterion_id and c.criterion_id not in co]
        out.append(SensitivityCase(
            trajectory_id=trajectory_id, arm=arm, kind=kind, criterion_id=criterion.criterion_id,
            description=result.description, target_before=before[criterion.criterion_id].score,
            target_after=after[criterion.criterion_id].score, non_target_deltas=others, co_targeted=co,
            gate_loss=not ok, negative=criterion.polarity is Polarity.NEGATIVE))
    return out, unscored


def same_citations(view: JudgeView, target: CriterionSpec, co: list[str]) -> list[str]:
    """For a citation target: the deliverable's other citation criteria on the same items (a second file
    named beside an item the target cites). A broken citation renames every file those lines may rightly
    cite, so these are hit by design, not by accident."""
    if target.kind is not CriterionKind.CITATION:
        return []
    items = set(target.anchors)
    return [c.criterion_id for c in view.spec.criteria
            if c.criterion_id != target.criterion_id and c.criterion_id not in co
            and c.kind is CriterionKind.CITATION and c.target_deliverable == target.target_deliverable
            and items & set(c.anchors)]


def mirrored(view: JudgeView, target: CriterionSpec, co: list[str]) -> list[str]:
    """The standing negatives of the target's deliverable that restate its defect, so are co-targeted:
    ``parts`` where a layout criterion is hit, ``misstated`` where a figure or date item is, ``sources`` where
    a citation or an item is."""
    hit = [c for c in view.spec.criteria if c.criterion_id == target.criterion_id or c.criterion_id in co]
    checks = {c.check for c in hit}
    wanted = {PARTS: "layout" in checks,
              MISSTATED: any(c.check == "item" and c.fact_kind in FIGURE_KINDS for c in hit),
              SOURCES: "item" in checks or any(c.kind is CriterionKind.CITATION for c in hit)}
    return [c.criterion_id for c in view.spec.criteria
            if c.criterion_id != target.criterion_id and c.criterion_id not in co
            and c.target_deliverable == target.target_deliverable and wanted.get(c.check or "", False)]


def summarise(cases: list[SensitivityCase]) -> list[SensitivityRow]:
    """One row per (arm, perturbation): mean target change, mean |change| of non-target criteria."""
    rows: list[SensitivityRow] = []
    for arm in sorted({c.arm for c in cases}, key=list(JudgeArm).index):
        for kind in PerturbationKind:
            mine = [c for c in cases if c.arm is arm and c.kind is kind]
            if not mine:
                continue
            non_target = [abs(d) for c in mine for d in c.non_target_deltas]
            rows.append(
                SensitivityRow(
                    arm=arm,
                    kind=kind,
                    cases=len(mine),
                    target_delta_mean=round(sum(c.target_delta for c in mine) / len(mine), 4),
                    non_target_abs_mean=round(sum(non_target) / len(non_target), 4) if non_target else 0.0,
                    non_target_n=len(non_target),
                    gate_loss_rate=round(sum(c.gate_loss for c in mine) / len(mine), 4),
                    paper_target_delta=PAPER_TARGET_DELTA.get(kind),
                    paper_non_target_abs=PAPER_NON_TARGET_ABS,
                )
            )
    return rows


def markdown_table(rows: list[SensitivityRow], unscored: list[UnscoredCase] | None = None) -> str:
    """The paper's table; cases without a verdict are listed below it, never in it."""
    head = ("| arm | perturbation | cases | Δ target (mean) | paper Δ target | mean abs Δ non-target | "
            "paper | attempts now a loss |\n|---|---|---:|---:|---:|---:|---:|---:|")
    body = [f"| {r.arm.value} | {r.kind.value} | {r.cases} | {r.target_delta_mean:+.3f} | "
            f"{_signed(r.paper_target_delta)} | {r.non_target_abs_mean:.3f} | {r.paper_non_target_abs:.3f} | "
            f"{r.gate_loss_rate:.0%} |" for r in rows]
    out = [head, *body] if rows else ["No case could be scored."]
    if unscored:
        out += ["", f"Not scored ({len(unscored)}): the judge gave no verdict, so these cases are left out "
                    "of the table above.", "", "| trajectory | arm | perturbation | criterion | reason |",
                "|---|---|---|---|---|"]
        out += [f"| {u.trajectory_id} | {u.arm.value} | {u.kind.value if u.kind else 'baseline'} | "
                f"{(u.criterion_id or 'all').rsplit('/', 1)[-1]} | {u.reason.replace('|', '/')[:300]} |"
                for u in unscored]
    return "\n".join(out)


def _signed(value: float | None) -> str:
    return "-" if value is None else f"{value:+.3f}"

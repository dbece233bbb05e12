"""Stage 7: one-step revision. Deterministic spec checks; a revision returning only the components to change
(chat model when configured, else rule-based repairs); the rollout is reused when the statement hash is the
same."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from graphforge import cypher, specs_store, store
from graphforge.context import StageContext
from graphforge.errors import GraphforgeError
from graphforge.figures.formula import parse_computation
from graphforge.figures.numbers import matches_value
from graphforge.judge import JudgeView, load_view
from graphforge.judge.locations import parse_location
from graphforge.judge.verifiers import expected_value, recover
from graphforge.models.spec import CriterionKind, CriterionSpec, Polarity, TaskSpec, statement_hash
from graphforge.models.trajectory import TrajectoryStatus
from graphforge.models.workspace import FileRole

GET_REVISABLE_SPECS = cypher.load("revise/get_revisable_specs")
GET_SPEC_ROLLOUTS = cypher.load("revise/get_spec_rollouts")
MERGE_SPEC_CHECKS = cypher.load("revise/merge_spec_checks")
LINK_REVISIONS = cypher.load("revise/link_revisions")
LINK_REUSED_ROLLOUTS = cypher.load("revise/link_reused_rollouts")

LEAK_WORDS = ("anchor", "rubric", "criterion", "criteria", "expected value", "verification procedure")
DEFAULT_VERIFICATION = {
    CriterionKind.VALUE: (
        "Read the value at the target location and compare it with the value recomputed from the "
        "anchored spans within the tolerance."
    ),
    CriterionKind.CITATION: (
        "Find the citations at the target location; each anchored file must be cited and every "
        "cited file must exist in the workspace."
    ),
    CriterionKind.STRUCTURE: "Open the deliverable and check the required sheets, formulas or sections.",
    CriterionKind.QUALITATIVE: (
        "Read the target section and judge it against the requirement and the anchored facts."
    ),
}


class ReviseSpecsParams(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    spec_ids: list[str] | None = None  # None: the newest version of every spec
    rerun: Literal["oracle", "none"] = "oracle"  # how to re-run a rollout when the statement changed
    use_llm: bool = True


class SpecRevision(BaseModel):
    spec_id: str
    problems: list[str]
    revised_spec_id: str | None = None
    reviser: str | None = None  # "rule-based" | "llm:<model>"
    changed: list[str] = Field(default_factory=list)  # the components the revision changed
    rollout: Literal["reused", "rerun", "missing", "unchanged-spec"] = "unchanged-spec"
    trajectory_id: str | None = None


class ReviseSpecsResult(BaseModel):
    checked: int
    failing_checks: int
    revised: int
    reused: int
    rerun: int
    reuse_rate: float | None  # reused / (reused + rerun) over revised specs with a rollout
    specs: list[SpecRevision]


class CriterionPatch(BaseModel):
    """The components of one criterion a revision changes (None: keep)."""

    model_config = ConfigDict(extra="ignore")

    criterion_id: str
    requirement: str | None = None
    verification: str | None = None
    expected_value: float | None = None
    target_location: str | None = None


class RevisionPatch(BaseModel):
    """Only what needs to change: a new statement, criterion patches, criteria to drop."""

    model_config = ConfigDict(extra="ignore")

    statement: str | None = None
    criteria: list[CriterionPatch] = Field(default_factory=list)
    drop: list[str] = Field(default_factory=list)


def spec_checks(view: JudgeView) -> list[str]:
    """Deterministic checks: anchors resolve, values recoverable from spans, verification present, no leak."""
    spec = view.spec
    problems: list[str] = []
    names = {d.name for d in spec.deliverables}
    for c in spec.criteria:
        cid = c.criterion_id.rsplit("/", 1)[-1]
        resolved = {a.fact_id for a in view.anchors_of(c)}
        missing = [f for f in c.anchors if f not in resolved]
        if missing:
            problems.append(f"{cid}: anchors do not resolve to facts with spans: {missing}")
        if c.polarity is Polarity.POSITIVE and not c.anchors and c.kind is not CriterionKind.STRUCTURE:
            problems.append(f"{cid}: positive criterion without anchors")
        if not c.verification.strip():
            problems.append(f"{cid}: empty verification procedure")
        if c.target_deliverable not in names:
            problems.append(f"{cid}: targets unknown deliverable {c.target_deliverable!r}")
        if c.kind is CriterionKind.VALUE and view.anchors_of(c):
            anchors = view.anchors_of(c)
            unrecoverable = [a.fact_id for a in anchors if recover(a) is None]
            if unrecoverable:
                problems.append(f"{cid}: values not recoverable from their spans: {unrecoverable}")
            elif parse_computation(c.computation, len(anchors)) is None:
                problems.append(f"{cid}: unknown computation {c.computation!r}")
            else:
                exp = expected_value(c, anchors)
                if (exp.value is not None and c.expected_value is not None
                        and not matches_value(exp.value, c.expected_value, c.tolerance)):
                    problems.append(
                        f"{cid}: expected value {c.expected_value:g} differs from the anchored spans "
                        f"({exp.value:g})"
                    )
        if c.target_location and parse_location(c.target_location) == parse_location(None):
            problems.append(f"{cid}: unreadable target location {c.target_location!r}")
    problems += [f"statement leaks {x}" for x in statement_leaks(view)]
    return problems


def statement_leaks(view: JudgeView) -> list[str]:
    """Hidden information in the statement: fact ids, file roles, judge vocabulary, expected values."""
    text = view.spec.statement
    lower = text.lower()
    found = [
        f"fact id {a.fact_id}" for anchors in view.anchors.values() for a in anchors if a.fact_id in text
    ]
    found += [f"role word {r.value!r}" for r in FileRole if re.search(rf"\b{r.value}\b", lower)]
    found += [f"word {w!r}" for w in LEAK_WORDS if re.search(rf"\b{w}\b", lower)]
    for c in view.spec.criteria:
        if c.kind is not CriterionKind.VALUE or c.polarity is not Polarity.POSITIVE:
            continue
        recomputed = expected_value(c, view.anchors_of(c)).value if view.anchors_of(c) else None
        for v in {x for x in (c.expected_value, recomputed) if x is not None}:
            forms = {f"{v:,.2f}", f"{v:.2f}"} | ({f"{v:,.0f}", f"{v:.0f}"} if v == round(v) else set())
            found += [f"expected value {f}" for f in sorted(forms)
                      if len(f.strip("0.,-")) >= 3 and re.search(rf"(?<![\d.,]){re.escape(f)}(?![\d])", text)]
    return sorted(set(found))


def rule_based_patch(view: JudgeView) -> RevisionPatch:
    """Repairs that need no model: recomputed expected values, default procedures, redacted leaks, dropped
    criteria whose anchors do not resolve."""
    patch = RevisionPatch()
    statement = view.spec.statement
    for leak in statement_leaks(view):
        if leak.startswith("fact id "):
            statement = statement.replace(leak.removeprefix("fact id "), "")
        elif leak.startswith("role word "):
            statement = re.sub(rf"\b{re.escape(leak.split(chr(39))[1])}\b\s*", "", statement, flags=re.I)
    if statement != view.spec.statement:
        statement = re.sub(r"[ \t]{2,}", " ", re.sub(r"\(\s*\)", "", statement)).strip()
        patch.statement = statement
    for c in view.spec.criteria:
        anchors = view.anchors_of(c)
        if [
            f for f in c.anchors if f not in {a.fact_id for a in anchors}
        ] and c.polarity is Polarity.POSITIVE:
            patch.drop.append(c.criterion_id)
            continue
        fix = CriterionPatch(criterion_id=c.criterion_id)
        if not c.verification.strip():
            fix.verification = DEFAULT_VERIFICATION[c.kind]
        if c.kind is CriterionKind.VALUE and anchors and all(recover(a) is not None for a in anchors):
            exp = expected_value(c, anchors)
            if exp.value is not None and (c.expected_value is None
                                          or not matches_value(exp.value, c.expected_value, c.tolerance)):
                fix.expected_value = round(exp.value, 6)
        if fix.verification or fix.expected_value is not None:
            patch.criteria.append(fix)
    return patch


def apply_patch(spec: TaskSpec, patch: RevisionPatch, reviser: str) -> tuple[TaskSpec, list[str]]:
    """The next version of a spec with only the patched components changed; also the list of changes."""
    changed: list[str] = []
    statement = spec.statement
    if patch.statement and patch.statement.strip() != spec.statement:
        statement = patch.statement.strip()
        changed.append("statement")
    version = spec.version + 1
    new_id = f"{spec.base_id}@v{version}"

    def renamed(cid: str) -> str:
        return new_id + "/" + cid.rsplit("/", 1)[-1]

    patches = {p.criterion_id: p for p in patch.criteria}
    criteria: list[CriterionSpec] = []
    for c in spec.criteria:
        short = c.criterion_id.rsplit("/", 1)[-1]
        if c.criterion_id in patch.drop:
            changed.append(f"{short}: dropped")
            continue
        update: dict[str, object] = {"criterion_id": renamed(c.criterion_id)}
        p = patches.get(c.criterion_id)
        if p is not None:
            for name in ("requirement", "verification", "expected_value", "target_location"):
                value = getattr(p, name)
                if value is not None and value != getattr(c, name):
                    update[name] = value
                    changed.append(f"{short}.{name}")
        criteria.append(c.model_copy(update=update))
    deliverables = [d.model_copy(update={"deliverable_id": f"{new_id}/{d.name}"}) for d in spec.deliverables]
    revised = spec.model_copy(
        update={
            "spec_id": new_id,
            "version": version,
            "statement": statement,
            "statement_hash": statement_hash(statement),
            "criteria": criteria,
            "deliverables": deliverables,
            "revised_from": spec.spec_id,
            "compiler": f"{spec.compiler}+revised:{reviser}",
        }
    )
    return TaskSpec.model_validate(revised.model_dump()), changed


def llm_patch(ctx: StageContext, view: JudgeView, problems: list[str]) -> tuple[RevisionPatch, str] | None:
    """Ask the chat model for only the components to change; None when no model is configured."""
    from graphforge.llm import ask_structured, chat_model

    llm = chat_model(ctx.settings)
    if llm is None:
        return None
    spec = view.spec
    lines = [
        f"Task statement:\n{spec.statement}",
        "Deliverables: " + ", ".join(d.name for d in spec.deliverables),
    ]
    for c in spec.criteria:
        anchors = "; ".join(f"{a.path} {a.locator}: {a.value}" for a in view.anchors_of(c))
        lines.append(f"- {c.criterion_id} [{c.polarity.value} {c.kind.value} w={c.weight}] {c.requirement} | "
                     f"at {c.target_deliverable} {c.target_location or ''} | expected {c.expected_value} | "
                     f"verification: {c.verification} | anchors: {anchors}")
    lines.append("Problems found by deterministic checks:\n" + ("\n".join(problems) or "none"))
    messages = [
        (
            "system",
            "You revise task specifications. Return ONLY the components that must change: a new "
            "statement only if the statement itself must change, criterion patches, ids to drop. "
            "The statement must never reveal expected values, file roles or grading details.",
        ),
        ("human", "\n".join(lines)),
    ]
    try:
        answer = ask_structured(llm, RevisionPatch, messages)
    except GraphforgeError:
        return None
    return answer.value, f"llm:{llm.model}"


def run(ctx: StageContext, params: ReviseSpecsParams) -> ReviseSpecsResult:
    rows = ctx.graph.read_dicts(GET_REVISABLE_SPECS, spec_ids=params.spec_ids)
    results: list[SpecRevision] = []
    for row in rows:
        view = load_view(ctx.graph, row["spec_id"])
        problems = spec_checks(view)
        result = SpecRevision(spec_id=view.spec.spec_id, problems=problems)
        proposal = llm_patch(ctx, view, problems) if params.use_llm else None
        if proposal is None and problems:
            proposal = rule_based_patch(view), "rule-based"
        revised = None
        if proposal is not None:
            candidate, changed = apply_patch(view.spec, *proposal)
            if changed:
                revised, result.changed, result.reviser = candidate, changed, proposal[1]
        ctx.graph.write(MERGE_SPEC_CHECKS, [{"spec_id": view.spec.spec_id, "checks_ok": not problems,
                                              "check_problems": problems,
                                              "revision": revised.spec_id if revised else None}])
        if revised is not None:
            specs_store.save_spec(ctx.graph, revised)
            ctx.graph.write(LINK_REVISIONS, [{"spec_id": revised.spec_id, "revised_from": view.spec.spec_id,
                                              "changed": result.changed}])
            result.revised_spec_id = revised.spec_id
            _rollout(ctx, params, view.spec, revised, result)
        results.append(result)
    reused = sum(r.rollout == "reused" for r in results)
    rerun = sum(r.rollout == "rerun" for r in results)
    return ReviseSpecsResult(
        checked=len(results),
        failing_checks=sum(bool(r.problems) for r in results),
        revised=sum(r.revised_spec_id is not None for r in results),
        reused=reused,
        rerun=rerun,
        reuse_rate=round(reused / (reused + rerun), 4) if reused + rerun else None,
        specs=results,
    )


def _rollout(ctx: StageContext, params: ReviseSpecsParams, old: TaskSpec, new: TaskSpec,
             result: SpecRevision) -> None:
    """Reuse the initial rollout when the normalised statement is unchanged; otherwise re-run it."""
    initial = ctx.graph.read_dicts(GET_SPEC_ROLLOUTS, spec_id=old.spec_id)
    if initial and new.statement_hash == old.statement_hash:
        # Every initial execution is reused and will be re-judged against the revised rubric.
        copies = [
            t.model_copy(
                update={
                    "trajectory_id": f"{t.trajectory_id}-v{new.version}",
                    "spec_id": new.spec_id,
                    "status": TrajectoryStatus.MATERIALISED,
                    "source": f"{t.source}; reused for {new.spec_id}",
                }
            )
            for t in store.get_trajectories(ctx.graph, [r["trajectory_id"] for r in initial])
        ]
        store.save_trajectories(ctx.graph, copies)
        ctx.graph.write(
            LINK_REUSED_ROLLOUTS,
            [
                {"trajectory_id": c.trajectory_id, "reused_from": c.trajectory_id.rsplit("-v", 1)[0]}
                for c in copies
            ],
        )
        result.rollout, result.trajectory_id = "reused", copies[0].trajectory_id
        return
    if params.rerun == "oracle":
        from graphforge.stages import rollout_oracle

        out = rollout_oracle.run(ctx, rollout_oracle.RolloutOracleParams(spec_id=new.spec_id))
        result.rollout, result.trajectory_id = "rerun", out.trajectory_id
        return
    result.rollout = "missing"

"""The oracle agent: plans from the graph, then demonstrates the task through the agent's own tools.

It is labelled as an oracle everywhere (scaffold "oracle", model "oracle (rule-based)"). Its messages carry
only what a working agent may see: the statement, workspace paths and file text; never fact ids, roles or
anchors.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path

from graphforge.agent.tools import TOOL_SCHEMAS
from graphforge.figures.formula import compute
from graphforge.judge.documents import normalise_format
from graphforge.judge.view import Anchor, JudgeView
from graphforge.models.base import stable_hash
from graphforge.models.spec import AgentView, CriterionKind, CriterionSpec, Polarity
from graphforge.models.trajectory import Trajectory
from graphforge.oracle.demonstrate import record
from graphforge.oracle.family import INVENTED_ENTRY, FamilyPlan
from graphforge.oracle.family import write as write_family
from graphforge.oracle.solve import Answer, input_of, solve
from graphforge.oracle.writers import Plan, fmt_number, short, write_report, write_workbook

ORACLE_SCAFFOLD = "oracle"
ORACLE_MODEL = "oracle (rule-based)"
TOOLS = TOOL_SCHEMAS  # the built-in agent loop's tools: the oracle demonstrates with exactly these


class InjectKind(StrEnum):
    """Errors the oracle can inject on purpose, to test the judge and admission."""

    WRONG_NUMBER = "wrong_number"              # the first value criterion gets a hard-coded wrong figure
    MISSING_DELIVERABLE = "missing_deliverable"  # the first deliverable is not written
    MISSING_SHEET = "missing_sheet"            # the first required sheet is left out
    BROKEN_CITATION = "broken_citation"        # citations name a file that is not in the workspace
    CONFUSER = "confuser"                      # a reported figure is taken from a superseded (confuser) file
    PROMPT_INJECTION = "prompt_injection"      # a line asking the grader for full marks
    REPEATED_CALLS = "repeated_calls"          # the same read_file call repeated (degenerate tool use)
    TOOL_FAILURES = "tool_failures"            # many failing tool calls


@dataclass
class OracleRun:
    trajectory: Trajectory
    injected: list[str] = field(default_factory=list)  # what was injected, in words


def trajectory_id(spec_id: str, inject: list[InjectKind], seed: int, slips: float = 0.0) -> str:
    """One id per (spec, injections, seed, slips): a re-run rewrites its trajectory, other options add one."""
    kinds = sorted(k.value for k in inject)
    parts = (spec_id, kinds, seed, slips) if slips else (spec_id, kinds, seed)  # ids made before slips hold
    return f"oracle-{stable_hash(*parts)}"


def plan(view: JudgeView, inject: list[InjectKind], confusers: list[Anchor]) -> tuple[Plan, list[str]]:
    """Solve the spec and apply the requested injections; returns the plan and a note per injection."""
    answers = solve(view)
    notes: list[str] = []
    result = Plan(answers=answers)
    if InjectKind.WRONG_NUMBER in inject and answers:
        # A misread source figure: the input that the most (weighted) value criteria rest on is written wrong,
        # and every figure computed from it inherits the error, as in a real spreadsheet.
        def misread(a: Answer, fid: str) -> Answer:
            inputs = [
                replace(i, value=round(i.value * 1.1 + 7, 2)) if i.fact_id == fid else i for i in a.inputs
            ]
            value = compute(a.spec_computation, [i.value for i in inputs])
            return replace(a, inputs=inputs, value=a.value if value is None else value)

        weight: dict[str, float] = {}
        for a in answers:
            for fid in {i.fact_id for i in a.inputs if i.fact_id}:
                if abs(misread(a, fid).value - a.value) > 1e-6 * max(1.0, abs(a.value)):
                    weight[fid] = weight.get(fid, 0.0) + a.criterion.weight
        if weight:
            fid = max(sorted(weight), key=lambda f: weight[f])
            for k, a in enumerate(answers):
                wrong = misread(a, fid)
                if wrong.value != a.value:
                    answers[k] = wrong
                    notes.append(f"wrong number for {a.criterion.criterion_id}: {fmt_number(wrong.value)} "
                                 f"instead of {fmt_number(a.value)}")
    if InjectKind.CONFUSER in inject and answers:
        k, decoy, note = _confuse(view, answers, confusers)
        if decoy is not None:
            notes.append(f"confuser figure for {answers[k].criterion.criterion_id}: {note}")
            answers[k] = decoy
        else:
            notes.append(note)
    if InjectKind.BROKEN_CITATION in inject:
        cited = [c.criterion_id for c in view.spec.criteria if c.kind is CriterionKind.CITATION
                 and c.polarity is Polarity.POSITIVE]
        result.cite_fake = set(cited[:1])
        notes.append(f"broken citation for {cited[:1]}")
    if InjectKind.MISSING_SHEET in inject:
        sheets = [s for d in view.spec.deliverables for s in d.required_sheets]
        result.skip_sheets = set(sheets[:1])
        notes.append(f"required sheet left out: {sheets[:1]}")
    if InjectKind.PROMPT_INJECTION in inject:
        result.injection_line = True
        notes.append("a line asking the grader for full marks")
    return result, notes


def _confuse(view: JudgeView, answers: list[Answer],
             confusers: list[Anchor]) -> tuple[int, Answer | None, str]:
    """The realistic confuser mistake: a reported figure taken from the superseded file, not the final one.

    The first answer whose cell a negative VALUE criterion watches, preferring a figure copied verbatim, is
    recomputed from that criterion's anchors (the superseded figures swapped in). Without one, the
    first answer whose first input has a confuser figure for the same metric and period with another value
    copies that figure. Returns (answer index, the wrong answer or None, a note).
    """
    from graphforge.figures.formula import parse_computation

    watched: dict[tuple[str, str | None], CriterionSpec] = {
        (c.target_deliverable, c.target_location): c for c in view.spec.criteria
        if c.polarity is Polarity.NEGATIVE and c.kind is CriterionKind.VALUE and c.target_location}
    order = sorted(range(len(answers)), key=lambda i: (answers[i].computation != "copy", i))
    for i in order:
        a = answers[i]
        neg = watched.get((a.criterion.target_deliverable, a.criterion.target_location))
        parsed = parse_computation(neg.computation, len(view.anchors_of(neg))) if neg else None
        if neg is None or parsed is None:
            continue
        anchors = view.anchors_of(neg)
        used = parsed.first or (1 if parsed.op == "copy" else 2 if parsed.op == "change" else len(anchors))
        inputs = [input_of(x) for x in anchors[:used]]
        value = compute(neg.computation, [x.value for x in inputs])
        if value is None:
            continue
        paths = sorted({x.path for x in anchors if x.role == "confuser" and x.path})
        return i, replace(a, inputs=inputs, value=value, spec_computation=neg.computation,
                          computation=parsed.op), f"{fmt_number(value)} from {', '.join(paths)}"
    for i in order:
        a = answers[i]
        first = a.inputs[0] if a.inputs and a.computation == "copy" else None
        source = next((x for x in view.anchors_of(a.criterion) if first and x.fact_id == first.fact_id), None)
        if first is None or source is None:
            continue
        for x in confusers:
            decoy = input_of(x)
            # the same metric, period and subject (statements read "<metric> of <entity> for <period> is ...")
            same = (x.metric, x.period, x.statement.split(" is ")[0]) == (source.metric, source.period,
                                                                       source.statement.split(" is ")[0])
            value = compute(a.spec_computation, [decoy.value])
            differs = abs(decoy.value - first.value) > 1e-9 * max(1.0, abs(first.value))
            if same and value is not None and differs:
                return i, replace(a, inputs=[decoy], value=value), f"{fmt_number(value)} from {decoy.path}"
    return 0, None, "confuser requested but no reported figure has a differing confuser figure"


def run_oracle(view: JudgeView, files: list[str], out_dir: Path, *, inject: list[InjectKind] | None = None,
               confusers: list[Anchor] | None = None, seed: int = 0, workspace_dir: Path | None = None,
               agent: AgentView | None = None, read_chars: int = 20_000, slips: float = 0.0) -> OracleRun:
    """Solve a spec and demonstrate it under ``out_dir/<trajectory_id>/``; return the trajectory.

    The deliverables are planned into drafts (``draft/``), then the demonstration runs through the agent's
    own tools in a working copy of ``workspace_dir`` (graphforge.oracle.demonstrate): every recorded tool
    result is what the tool returned, and the deliverables stored are the files those calls wrote. Without
    a workspace folder the working copy starts empty (nothing to read; the writes are still real).
    ``slips`` is the chance that the demonstration asks once for a misremembered file name and recovers
    from the tool's answer (graphforge.oracle.demonstrate.record).
    """
    inject = sorted(set(inject or []), key=lambda k: k.value)
    tid = trajectory_id(view.spec.spec_id, inject, seed, slips)
    family = any(c.check for c in view.spec.criteria)
    if family:
        fplan, notes = family_plan(view, inject)
        plan_ = Plan(answers=[])
    else:
        plan_, notes = plan(view, inject, confusers or [])
    run_dir = out_dir / tid
    draft_dir = run_dir / "draft"
    draft_dir.mkdir(parents=True, exist_ok=True)
    drafts: dict[str, Path] = {}
    for i, deliverable in enumerate(view.spec.deliverables):
        if InjectKind.MISSING_DELIVERABLE in inject and i == 0:
            notes.append(f"deliverable not written: {deliverable.name}")
            continue
        path = draft_dir / Path(deliverable.name).name
        kind = normalise_format(deliverable.format)
        if family:
            write_family(path, view, deliverable, fplan)
        elif kind == "xlsx":
            write_workbook(path, view, deliverable, plan_)
        elif kind == "csv":
            _write_csv(path, plan_.answers, deliverable.name)
        else:
            write_report(path, view, deliverable, plan_)
        drafts[deliverable.name] = path
    agent = agent or AgentView(spec_id=view.spec.spec_id, statement=view.spec.statement, files=sorted(files),
                               deliverables=[d.name for d in view.spec.deliverables])
    recording = record(view, agent, workspace_dir, run_dir, drafts, plan_.answers, seed=seed,
                       read_chars=read_chars, repeat_reads=InjectKind.REPEATED_CALLS in inject,
                       failing_reads=InjectKind.TOOL_FAILURES in inject, slips=slips)
    messages = recording.messages
    trajectory = Trajectory(trajectory_id=tid, spec_id=view.spec.spec_id, scaffold=ORACLE_SCAFFOLD,
                            model=ORACLE_MODEL, messages=messages, tools=list(TOOL_SCHEMAS),
                            steps=sum(1 for m in messages if m.role == "assistant"),
                            deliverables=recording.deliverables,
                            source="graphforge oracle (rule-based; plans from the spec's anchors in the "
                                   "graph, demonstrates through the agent's tools)"
                                   + (f"; injected: {', '.join(k.value for k in inject)}" if inject else "")
                                   + "".join(f"; {n}" for n in recording.notes))
    return OracleRun(trajectory, notes)


def family_plan(view: JudgeView, inject: list[InjectKind]) -> tuple[FamilyPlan, list[str]]:
    """Injections for a task-family spec, with a note per injection."""
    fplan, notes = FamilyPlan(), []
    items = [c for c in view.spec.criteria if c.check == "item"]
    if InjectKind.WRONG_NUMBER in inject and items:
        target = max(items, key=lambda c: c.weight)
        fplan.wrong_item = target.criterion_id
        notes.append(f"wrong value for {target.criterion_id}")
    if InjectKind.CONFUSER in inject:
        stale = [c for c in view.spec.criteria if c.check == "stale" and len(view.anchors_of(c)) > 1]
        current = {view.anchors_of(c)[1].fact_id for c in stale}
        hit = next((c for c in items if view.anchors_of(c) and view.anchors_of(c)[0].fact_id in current),
                   None)
        if hit is not None:
            fplan.stale_item = hit.criterion_id
            notes.append(f"superseded value written as current for {hit.criterion_id}")
        invented = next((c for c in view.spec.criteria if c.check == "invented"), None)
        if invented is not None:
            fplan.invented_entry = INVENTED_ENTRY
            notes.append(f"an entry no source states added for {invented.criterion_id}")
        if hit is None and invented is None:
            notes.append("no superseded value to confuse with in this spec")
    if InjectKind.BROKEN_CITATION in inject:
        fplan.fake_sources = True
        notes.append("sources name files that are not in the workspace")
    if InjectKind.MISSING_SHEET in inject:
        parts = [c.expected for c in view.spec.criteria if c.check == "layout" and c.expected]
        fplan.skip_part = parts[0] if parts else None
        notes.append(f"required part left out: {fplan.skip_part}")
    if InjectKind.PROMPT_INJECTION in inject:
        fplan.injection_line = True
        notes.append("a line asking the grader for full marks")
    return fplan, notes


def _write_csv(path: Path, answers: list[Answer], name: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["item", "value", "source"])
        for a in answers:
            if a.criterion.target_deliverable == name:
                writer.writerow([short(a.criterion.requirement, 60), round(a.value, 6),
                                 "; ".join(f"{i.path} ({i.locator})" for i in a.inputs)])

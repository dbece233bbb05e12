"""Deterministic verifiers, one per criterion kind, for the anchored and the unanchored arm.

Anchored: the expected value is recomputed from the anchored span text (the fact's value text must occur in
its span and is re-parsed), then compared with the value found at the target location. Text in workspace
files or deliverables is only ever parsed for numbers and file names, never followed as an instruction.
"""

from __future__ import annotations

import re

from graphforge.figures.numbers import matches_value
from graphforge.judge.checks import structure_problems
from graphforge.judge.documents import Document, Workbook, norm_key
from graphforge.judge.grader_notes import addresses_grader
from graphforge.judge.items import verify_check
from graphforge.judge.locations import Location, parse_location
from graphforge.judge.regions import Footprint, Found, Line, citations, find_values, lines, locator_matches
from graphforge.judge.standing import FINAL_MESSAGE, STANDING_CHECKS, verify_standing
from graphforge.judge.verdicts import Verdict, expected_value, fmt_value, is_percent, recover
from graphforge.judge.view import Anchor, JudgeView
from graphforge.models.judge import JudgeArm
from graphforge.models.spec import CriterionKind, CriterionSpec, Polarity

# Verdict, recover and expected_value live in graphforge.judge.verdicts; named here too for older callers.
__all__ = ["Verdict", "expected_value", "qualitative_proxy", "recover", "verify"]


def verify(criterion: CriterionSpec, arm: JudgeArm, view: JudgeView, doc: Document | None) -> Verdict:
    """Score one criterion deterministically (a in [0, 1] for positive, v in {0, 1} for negative)."""
    if doc is None:
        if criterion.target_deliverable == FINAL_MESSAGE:
            return Verdict(0.0, "no final message was given to the judge")
        return Verdict(0.0, f"deliverable {criterion.target_deliverable!r} is not available")
    if criterion.check in STANDING_CHECKS:
        return verify_standing(criterion, arm, view, doc)
    if criterion.check is not None:
        return Verdict(*verify_check(criterion, arm, view, doc))
    loc = parse_location(criterion.target_location)
    anchors = view.anchors_of(criterion) if arm is JudgeArm.ANCHORED else []
    negative = criterion.polarity is Polarity.NEGATIVE
    if criterion.kind is CriterionKind.VALUE:
        if arm is JudgeArm.ANCHORED:
            legit = _legitimate_values(criterion, view) if negative else []
            return _value_anchored(criterion, anchors, doc, loc, negative, legit)
        return _value_unanchored(criterion, doc, loc, negative)
    if criterion.kind is CriterionKind.CITATION:
        return _citation(criterion, anchors, view, doc, loc, negative, arm is JudgeArm.ANCHORED)
    if criterion.kind is CriterionKind.STRUCTURE:
        return _structure(criterion, view, doc, loc, negative)
    return qualitative_proxy(criterion, anchors, doc, loc, negative)


def _legitimate_values(negative: CriterionSpec, view: JudgeView) -> list[tuple[float, float, bool]]:
    """Values a negative criterion must not count: what the positive VALUE criteria at its location expect.

    A located negative mirrors the positive at the same cell; without a location every positive VALUE
    criterion of the deliverable counts, so a superseded figure that equals some other legitimate figure is
    never taken for a violation. Each item is (value recomputed from the positive's anchors, tolerance,
    percent).
    """
    out: list[tuple[float, float, bool]] = []
    for c in view.spec.criteria:
        if (c.polarity is not Polarity.POSITIVE or c.kind is not CriterionKind.VALUE
                or c.target_deliverable != negative.target_deliverable
                or (negative.target_location and c.target_location != negative.target_location)):
            continue
        anchors = view.anchors_of(c)
        exp = expected_value(c, anchors)
        if exp.value is not None:
            out.append((exp.value, c.tolerance, is_percent(c, anchors)))
    return out


def _value_anchored(criterion: CriterionSpec, anchors: list[Anchor], doc: Document, loc: Location,
                    negative: bool, legit: list[tuple[float, float, bool]] | None = None) -> Verdict:
    name = criterion.target_deliverable
    exp = expected_value(criterion, anchors)
    found = find_values(doc, loc, name, criterion.requirement)
    where = loc.raw or "anywhere in the deliverable"
    if exp.value is None:
        return Verdict(0.0, f"cannot verify: {exp.note}", _union(found))
    percent = is_percent(criterion, anchors)
    hits = [f for f in found if f.value is not None and matches_value(f.value, exp.value, criterion.tolerance,
                                                                       percent)]
    if negative:
        # Evidenced only by the superseded value itself, and never by a value that is also a legitimate one.
        real = [h for h in hits
                if not any(matches_value(h.value or 0.0, v, tol, pct) for v, tol, pct in legit or [])]
        if real:
            sources = sorted({a.path for a in anchors if a.role == "confuser" and a.path})
            origin = f" from the superseded {', '.join(sources)}" if sources else ""
            shown = real[0].text or fmt_value(real[0].value or 0)
            return Verdict(1.0, f"violation: {real[0].where} holds {shown}, the value of the anchored facts"
                                f"{origin} ({exp.note})", real[0].footprint)
        if hits:
            shown = fmt_value(hits[0].value or 0)
            return Verdict(0.0, f"no violation: {hits[0].where} holds {shown}, which is also a legitimate "
                                f"value there (a coincidence, not evidence)", _union(found))
        return Verdict(
            0.0, f"no violation: the anchored value {fmt_value(exp.value)} is not at {where}", _union(found)
        )
    if hits:
        return Verdict(
            1.0,
            f"{hits[0].where} = {fmt_value(hits[0].value or 0)} matches expected {fmt_value(exp.value)} "
            f"({exp.note}; tolerance {criterion.tolerance:g})",
            hits[0].footprint,
        )
    if not found:
        return Verdict(0.0, f"no value found at {where}; expected {fmt_value(exp.value)} ({exp.note})",
                       _fallback_footprint(doc, loc, name))
    shown = ", ".join(f"{f.where}={f.text or f.error or 'empty'}" for f in found[:4])
    return Verdict(0.0, f"expected {fmt_value(exp.value)} ({exp.note}) but found {shown}", _union(found))


def _value_unanchored(criterion: CriterionSpec, doc: Document, loc: Location, negative: bool) -> Verdict:
    # Without anchors nothing says what the right number is: the check can only see that one is there.
    if negative:
        return Verdict(0.0, "unanchored: a violation cannot be evidenced without anchors")
    found = [f for f in find_values(doc, loc, criterion.target_deliverable, criterion.requirement)
             if f.value is not None]
    if found:
        return Verdict(1.0, f"unanchored: {found[0].where} holds a number ({found[0].text}); correctness not "
                            f"checked", found[0].footprint)
    return Verdict(0.0, f"unanchored: no number at {loc.raw or 'the deliverable'}",
                   _fallback_footprint(doc, loc, criterion.target_deliverable))


def _citation(criterion: CriterionSpec, anchors: list[Anchor], view: JudgeView, doc: Document, loc: Location,
              negative: bool, anchored: bool) -> Verdict:
    region = lines(doc, loc, criterion.target_deliverable)
    ignore = {d.name for d in view.spec.deliverables}
    cites = citations(region, view.paths, ignore)
    fabricated = [c for c in cites if c.path is None]
    if negative:
        files = {a.path for a in anchors if a.path}
        used = [c for c in cites if c.path in files]
        if anchored and used:
            return Verdict(
                1.0, f"violation: cites {used[0].path} ({used[0].line.where})", used[0].line.footprint
            )
        return Verdict(0.0, "no violation evidenced: the anchored files are not cited", _lines_fp(region))
    if not anchored:
        real = [c for c in cites if c.path is not None]
        if real and not fabricated:
            return Verdict(
                1.0, f"unanchored: cites workspace file {real[0].path}", _lines_fp([c.line for c in cites])
            )
        why = (
            f"cites files not in the workspace: {[c.token for c in fabricated]}"
            if fabricated
            else "no citation"
        )
        return Verdict(0.0, f"unanchored: {why}", _lines_fp(region))
    # One check per distinct (file, locator) the anchors sit in.
    targets = sorted({(a.path, a.locator) for a in anchors if a.path})
    own = {c.line.where for c in cites if c.path in {p for p, _ in targets}}
    # A citation of a file that does not exist, on a line that cites this criterion's sources (or in a region
    # of its own), breaks the criterion; elsewhere it is another criterion's business.
    broken = [c for c in fabricated if c.line.where in own or loc.cells]
    if broken:
        return Verdict(0.0, f"broken citation: {', '.join(repr(c.token) for c in broken)} is not a workspace "
                            f"file ({broken[0].line.where})", _lines_fp([c.line for c in broken]))
    if not targets:
        return Verdict(
            0.0, "cannot verify: the anchors' files are not in the spec's workspace", _lines_fp(region)
        )
    scores: list[float] = []
    notes: list[str] = []
    used_lines: list[Line] = []
    for path, locator in targets:
        mine = [c for c in cites if c.path == path]
        if not mine:
            scores.append(0.0)
            notes.append(f"{path} not cited")
            continue
        used_lines.extend(c.line for c in mine)
        if any(any(locator_matches(x, locator) for x in c.locators) for c in mine):
            scores.append(1.0)
            notes.append(f"{path} cited at {locator}")
        elif any(c.locators for c in mine):
            scores.append(0.0)
            shown = sorted({x for c in mine for x in c.locators})
            notes.append(f"{path} cited at {shown} but the anchor is at {locator}")
        else:
            scores.append(1.0)  # the right file; no locator written, so none can be wrong
            notes.append(f"{path} cited (no locator given; the anchor is at {locator})")
    score = sum(scores) / len(scores)
    if fabricated:
        notes.append(f"elsewhere cites files not in the workspace: {[c.token for c in fabricated]}")
    return Verdict(score, "; ".join(notes), _lines_fp(used_lines) or _lines_fp(region))


def _structure(
    criterion: CriterionSpec, view: JudgeView, doc: Document, loc: Location, negative: bool
) -> Verdict:
    name = criterion.target_deliverable
    if isinstance(doc, Workbook):
        ev = doc.evaluator
        sheet = ev.sheet_name(loc.sheet) if loc.sheet else None
        if loc.sheet is not None and sheet is None:
            return Verdict(1.0 if negative else 0.0, f"sheet {loc.sheet!r} does not exist",
                           frozenset({(name, loc.sheet, "*")}))
        if sheet is not None and loc.cells:
            held = [doc.sheets[sheet].get(c) for c in loc.cells]
            formulas = [h for h in held if h is not None and h.formula]
            fp = frozenset((name, sheet, c) for c in loc.cells)
            want_funcs = _wanted_functions(criterion)
            if negative:  # e.g. "does not hard-code totals": evidenced by a constant where a formula belongs
                constants = [
                    c for c, h in zip(loc.cells, held, strict=True) if h is not None and not h.formula
                ]
                return (
                    Verdict(1.0, f"violation: {sheet}!{constants[0]} is a hard-coded value", fp)
                    if constants
                    else Verdict(0.0, "no violation: formulas at the target cells", fp)
                )
            if len(formulas) < len(loc.cells):
                return Verdict(
                    len(formulas) / len(loc.cells),
                    f"{len(loc.cells) - len(formulas)} of {len(loc.cells)} target cells lack a formula",
                    fp,
                )
            missing = [f for f in want_funcs if not any(f in (h.formula or "").upper() for h in formulas)]
            if missing:
                return Verdict(0.5, f"formulas present but without {missing}", fp)
            return Verdict(1.0, f"formulas at {loc.raw}: {formulas[0].formula}", fp)
        if sheet is not None:
            filled = len(doc.sheets[sheet])
            return Verdict((0.0 if filled else 1.0) if negative else (1.0 if filled else 0.0),
                           f"sheet {sheet!r} has {filled} filled cells", frozenset({(name, sheet, "*")}))
        return _whole_structure(criterion, view, doc, negative)
    if loc.section is not None:
        section = doc.section(loc.section)
        if section is None:
            return Verdict(1.0 if negative else 0.0, f"section {loc.section!r} is missing",
                           frozenset({(name, loc.section, "*")}))
        fp = frozenset({(name, section.heading, "*")})
        words = len(section.text.split())
        return Verdict((0.0 if words else 1.0) if negative else (1.0 if words else 0.0),
                       f"section {section.heading!r} has {words} words", fp)
    return _whole_structure(criterion, view, doc, negative)


def _whole_structure(criterion: CriterionSpec, view: JudgeView, doc: Document, negative: bool) -> Verdict:
    """No location: the deliverable's required sheets / formulas / sections, plus names in ``expected``."""
    name = criterion.target_deliverable
    spec = next((d for d in view.spec.deliverables if d.name == name), None)
    listed = [x.strip() for x in (criterion.expected or "").split(",") if x.strip()]
    if spec is not None:
        extra = {"required_sheets": [*spec.required_sheets, *listed]} if isinstance(doc, Workbook) else \
            {"required_sections": [*spec.required_sections, *listed]}
        spec = spec.model_copy(update=extra)
    problems = structure_problems(spec, doc) if spec is not None else []
    wanted = (
        (len(spec.required_sheets) + len(spec.required_formulas) + len(spec.required_sections)) if spec else 0
    )
    if isinstance(doc, Workbook):
        fp = frozenset((name, s, "*") for s in (spec.required_sheets if spec else doc.order))
    else:
        fp = frozenset((name, s, "*") for s in (spec.required_sections if spec else []))
    if negative:
        return Verdict(0.0, "no structural violation can be evidenced without a location", fp)
    if not wanted:
        return Verdict(1.0, "the deliverable opened; no structure was required", fp)
    score = max(0.0, 1.0 - len(problems) / wanted)
    return Verdict(score, "; ".join(problems) if problems else f"all {wanted} required parts present", fp)


def _wanted_functions(criterion: CriterionSpec) -> list[str]:
    text = f"{criterion.expected or ''} {criterion.computation or ''}".upper()
    return [f for f in ("SUM", "AVERAGE", "ROUND", "MIN", "MAX", "PRODUCT") if re.search(rf"\b{f}\b", text)]


def qualitative_proxy(criterion: CriterionSpec, anchors: list[Anchor], doc: Document, loc: Location,
                      negative: bool, min_words: int = 12) -> Verdict:
    """Without a chat model: the target text exists, has substance and (anchored) mentions anchored facts."""
    region = lines(doc, loc, criterion.target_deliverable)
    injected = [line for line in region if addresses_grader(line.text)]
    text = "\n".join(line.text for line in region if line not in injected)
    fp = _lines_fp(region)
    verifier = "rule-based proxy (no chat model configured)"
    if negative:
        return Verdict(0.0, "a qualitative violation cannot be evidenced without a chat model", fp, verifier)
    words = len(text.split())
    ignored = (f"; ignored {len(injected)} line(s) addressed to the grader ({injected[0].where})"
               if injected else "")
    if words < min_words:
        return Verdict(0.0, f"{loc.raw or 'the deliverable'} has {words} words (< {min_words}){ignored}", fp,
                       verifier)
    if not anchors:
        return Verdict(1.0, f"{words} words at {loc.raw or 'the deliverable'}{ignored}", fp, verifier)
    terms = {t for a in anchors for t in (a.metric, a.period, a.value) if t}
    mentioned = [t for t in terms if norm_key(t) and norm_key(t) in norm_key(text)]
    score = 0.5 + 0.5 * min(1.0, len(mentioned) / max(1, min(2, len(terms))))
    return Verdict(score, f"{words} words; mentions {sorted(mentioned)[:5]} of the anchored facts' "
                          f"terms{ignored}", fp, verifier)


def _union(found: list[Found]) -> Footprint:
    return frozenset(item for f in found for item in f.footprint)


def _lines_fp(region: list[Line]) -> Footprint:
    return frozenset(item for line in region for item in line.footprint)


def _fallback_footprint(doc: Document, loc: Location, name: str) -> Footprint:
    if loc.sheet is not None:
        return frozenset((name, loc.sheet, c) for c in loc.cells) or frozenset({(name, loc.sheet, "*")})
    if loc.section is not None:
        return frozenset({(name, loc.section, "*")})
    return frozenset()

"""Perturb a deliverable at what one criterion cites: delete the sheet, corrupt the row, change the number,
break the citation. Used by the judge-sensitivity study (``graphforge eval sensitivity``)."""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from graphforge.figures.numbers import find_numbers
from graphforge.judge.documents import Document, Report, Workbook, normalise_format
from graphforge.judge.locations import parse_location
from graphforge.judge.regions import Footprint, find_file_names
from graphforge.judge.verifiers import Verdict
from graphforge.judge.view import JudgeView
from graphforge.models.spec import CriterionKind, CriterionSpec, Polarity


class PerturbationKind(StrEnum):
    DELETE_SHEET = "delete_sheet"      # delete the worksheet (or report section) the criterion cites
    CORRUPT_ROW = "corrupt_row"        # corrupt the row the criterion's value rests on
    CHANGE_NUMBER = "change_number"    # change the cited number itself
    BREAK_CITATION = "break_citation"  # make a citation name a file that is not in the workspace


# The paper's judge (GLM-5.2): mean change of the targeted criterion's score per perturbation.
PAPER_TARGET_DELTA = {PerturbationKind.DELETE_SHEET: -0.377, PerturbationKind.CORRUPT_ROW: -0.018,
                      PerturbationKind.CHANGE_NUMBER: -0.022, PerturbationKind.BREAK_CITATION: -0.013}
PAPER_NON_TARGET_ABS = 0.016


@dataclass(frozen=True)
class Perturbed:
    kind: PerturbationKind
    criterion_id: str
    deliverable: str
    path: Path  # the perturbed copy of the deliverable
    touched: Footprint
    description: str


def changed(value: float) -> float:
    """A clearly different number (never within any sensible tolerance of the original)."""
    return round(value * 1.37 + 11, 2)


def applicable(kind: PerturbationKind, criterion: CriterionSpec) -> bool:
    if criterion.polarity is not Polarity.POSITIVE:
        return False
    if kind is PerturbationKind.BREAK_CITATION:
        return criterion.kind is CriterionKind.CITATION
    if kind is PerturbationKind.DELETE_SHEET:
        loc = parse_location(criterion.target_location)
        return loc.sheet is not None or loc.section is not None
    return criterion.kind is CriterionKind.VALUE


def perturb(kind: PerturbationKind, criterion: CriterionSpec, baseline: Verdict, view: JudgeView,
            source: Path, doc: Document, out: Path) -> Perturbed | None:
    """Write a perturbed copy of ``source`` to ``out``; None when the criterion offers nothing to perturb."""
    out.parent.mkdir(parents=True, exist_ok=True)
    name = criterion.target_deliverable
    fmt = normalise_format(source.suffix)
    loc = parse_location(criterion.target_location)
    mine = {i for i in baseline.footprint if i[0] == name}
    if isinstance(doc, Workbook) and fmt == "xlsx":
        return _perturb_workbook(kind, criterion, view, source, doc, out, loc.sheet, mine)
    if isinstance(doc, Report):
        return _perturb_report(kind, criterion, view, source, doc, out, fmt, loc.section, mine)
    return None


def _perturb_workbook(
    kind: PerturbationKind,
    criterion: CriterionSpec,
    view: JudgeView,
    source: Path,
    doc: Workbook,
    out: Path,
    sheet: str | None,
    mine: set[tuple[str, str, str]],
) -> Perturbed | None:
    import openpyxl

    name = criterion.target_deliverable
    wb = openpyxl.load_workbook(source)
    touched: set[tuple[str, str, str]] = set()
    what = ""
    if kind is PerturbationKind.DELETE_SHEET:
        real = doc.evaluator.sheet_name(sheet) if sheet else None
        if real is None:
            return None
        wb.remove(wb[real])
        touched.add((name, real, "*"))
        what = f"deleted sheet {real!r}"
    elif kind is PerturbationKind.CHANGE_NUMBER:
        loc = parse_location(criterion.target_location)
        cells = [
            (s, c)
            for _, s, c in mine
            if c != "*"
            and s == (doc.evaluator.sheet_name(loc.sheet or "") or s)
            and (not loc.cells or c in loc.cells)
        ]
        for s, c in sorted(cells)[:1]:
            value = doc.evaluator.evaluate(s, c).value
            if not isinstance(value, float):
                return None
            wb[s][c] = changed(value)
            touched.add((name, s, c))
            what = f"{s}!{c}: {value:g} -> {changed(value):g}"
    elif kind is PerturbationKind.CORRUPT_ROW:
        # The cited row: the row of an input the value rests on (a precedent constant), else the target's row.
        loc = parse_location(criterion.target_location)
        target = {(s, c) for _, s, c in mine if c in loc.cells}
        inputs = sorted((s, c) for _, s, c in mine if c != "*" and (s, c) not in target
                        and doc.sheets.get(s, {}).get(c) is not None and doc.sheets[s][c].formula is None
                        and isinstance(doc.sheets[s][c].value, int | float))
        anchor = inputs[0] if inputs else (sorted(target)[0] if target else None)
        if anchor is None:
            return None
        s, c = anchor
        row = re.sub(r"\D", "", c)
        for ref, data in doc.sheets[s].items():
            if re.sub(r"\D", "", ref) != row:
                continue
            if (
                data.formula is None
                and isinstance(data.value, int | float)
                and not isinstance(data.value, bool)
            ):
                wb[s][ref] = changed(float(data.value))
                touched.add((name, s, ref))
            elif data.formula is not None:
                value = doc.evaluator.evaluate(s, ref).value
                if isinstance(value, float):
                    wb[s][ref] = changed(value)
                    touched.add((name, s, ref))
        what = f"corrupted row {row} of {s!r}"
    elif kind is PerturbationKind.BREAK_CITATION:
        anchor_paths = {a.path for a in view.anchors_of(criterion) if a.path}
        for _, s, c in sorted(mine):
            if c == "*" or s not in wb.sheetnames:
                continue
            text = wb[s][c].value
            if not isinstance(text, str):
                continue
            broken = _break(text, anchor_paths, view.paths)
            if broken != text:
                wb[s][c] = broken
                touched.add((name, s, c))
                what = f"{s}!{c}: citation points at a file that does not exist"
                break
    if not touched:
        return None
    wb.save(out)
    return Perturbed(kind, criterion.criterion_id, name, out, frozenset(touched), what)


def _break(text: str, anchor_paths: set[str], paths: list[str]) -> str:
    for f in find_file_names(text, paths):
        if f.path in anchor_paths:
            stem, _, ext = f.token.rpartition(".")
            return text[:f.start] + f"{stem}_final_v2.{ext}" + text[f.end:]
    return text


def _perturb_report(kind: PerturbationKind, criterion: CriterionSpec, view: JudgeView, source: Path,
                    doc: Report, out: Path, fmt: str, section: str | None,
                    mine: set[tuple[str, str, str]]) -> Perturbed | None:
    name = criterion.target_deliverable
    edits: dict[tuple[str, int], str | None] = {}  # (heading, line index) -> new text (None: delete)
    drop_section: str | None = None
    what = ""
    if kind is PerturbationKind.DELETE_SHEET:
        target = doc.section(section) if section else None
        if target is None:
            return None
        drop_section = target.heading
        what = f"deleted section {target.heading!r}"
    else:
        anchor_paths = {a.path for a in view.anchors_of(criterion) if a.path}
        for _, heading, idx in sorted(mine):
            sec = doc.section(heading) if heading else doc.sections[0]
            if idx == "*" or sec is None:
                continue
            lines = sec.text.splitlines()
            line = lines[int(idx)]
            if kind is PerturbationKind.BREAK_CITATION:
                new = _break(line, anchor_paths, view.paths)
            elif kind is PerturbationKind.CHANGE_NUMBER:
                numbers = find_numbers(line)
                if not numbers:
                    continue
                value, start, end = numbers[-1]
                new = line[:start] + f"{changed(value):,.2f}" + line[end:]
            else:
                new = line
                for value, start, end in reversed(find_numbers(line)):
                    new = new[:start] + f"{changed(value):,.2f}" + new[end:]
            if new != line:
                edits[(sec.heading, int(idx))] = new
                what = f"{kind.value} in section {sec.heading!r} line {int(idx) + 1}"
                break
        if not edits:
            return None
    touched = frozenset({(name, drop_section, "*")} if drop_section else
                        {(name, h, str(i)) for h, i in edits})
    if fmt == "docx":
        _rewrite_docx(source, out, edits, drop_section)
    else:
        _rewrite_markdown(source, out, edits, drop_section)
    return Perturbed(kind, criterion.criterion_id, name, out, touched, what)


def _rewrite_markdown(
    source: Path, out: Path, edits: dict[tuple[str, int], str | None], drop: str | None
) -> None:
    from graphforge.judge.documents import HEADING_RE

    heading, idx, skipping = "", -1, False
    result: list[str] = []
    for line in source.read_text(encoding="utf-8").splitlines():
        m = HEADING_RE.match(line)
        if m:
            heading, idx = m.group(2).strip(), -1
            skipping = heading == drop
            if not skipping:
                result.append(line)
            continue
        if line.strip():
            idx += 1
        if skipping:
            continue
        new = edits.get((heading, idx), line) if line.strip() else line
        if new is not None:
            result.append(new)
    out.write_text("\n".join(result) + "\n", encoding="utf-8")


def _rewrite_docx(
    source: Path, out: Path, edits: dict[tuple[str, int], str | None], drop: str | None
) -> None:
    import docx

    from graphforge.judge.documents import _heading_level

    shutil.copyfile(source, out)
    document = docx.Document(str(out))
    heading, idx, skipping = "", -1, False
    for paragraph in list(document.paragraphs):
        style = (paragraph.style.name if paragraph.style is not None else "") or ""
        if _heading_level(style):
            heading, idx = paragraph.text.strip(), -1
            skipping = heading == drop
            if skipping:
                paragraph._element.getparent().remove(paragraph._element)
            continue
        if not paragraph.text.strip():
            continue
        idx += 1
        if skipping:
            paragraph._element.getparent().remove(paragraph._element)
        elif (heading, idx) in edits:
            paragraph.text = edits[(heading, idx)] or ""
    document.save(str(out))

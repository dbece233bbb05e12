"""Perturb a deliverable at what one criterion cites: delete the sheet, corrupt the row, change the number,
break the citation. Used by the judge-sensitivity study (``graphforge eval sensitivity``)."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from graphforge.figures.numbers import find_numbers, matches_value
from graphforge.judge.documents import Document, Report, Workbook, normalise_format
from graphforge.judge.locations import parse_location
from graphforge.judge.regions import KEYED_LOCATOR_RE, SHEET_REF_RE, Footprint, find_file_names, is_part
from graphforge.judge.verdicts import Verdict, recover
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
        # A located criterion names its sheet or section; a task-family criterion is found wherever the
        # deliverable puts it, so the part to delete is the one its baseline verdict rests on.
        loc = parse_location(criterion.target_location)
        return loc.sheet is not None or loc.section is not None or criterion.check is not None
    return criterion.kind is CriterionKind.VALUE


def perturb(kind: PerturbationKind, criterion: CriterionSpec, baseline: Verdict, view: JudgeView,
            source: Path, doc: Document, out: Path) -> Perturbed | None:
    """Write a perturbed copy of ``source`` to ``out``; None when the criterion offers nothing to perturb."""
    out.parent.mkdir(parents=True, exist_ok=True)
    name = criterion.target_deliverable
    fmt = normalise_format(source.suffix)
    loc = parse_location(criterion.target_location)
    footprint = {i for i in baseline.footprint if i[0] == name}
    # The one sheet or section the criterion names, else the one its baseline verdict rests on.
    containers = {c for _, c, _ in footprint}
    part = loc.sheet or loc.section or (next(iter(containers)) if len(containers) == 1 else None)
    mine = {i for i in footprint if is_part(i)}
    if isinstance(doc, Workbook) and fmt == "xlsx":
        return _perturb_workbook(kind, criterion, view, source, doc, out, part, mine)
    if isinstance(doc, Report) and fmt in _REPORT_WRITERS:
        return _perturb_report(kind, criterion, view, source, doc, out, fmt, part, mine)
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
        # A family criterion's footprint is its whole row: the number cells in it (not text such as
        # "2024-Q2"), the one holding the expected value first.
        numeric = [(s, c, float(v)) for s, c in sorted(cells) if _is_number_cell(doc, s, c)
                   and isinstance(v := doc.evaluator.evaluate(s, c).value, float)]
        wanted = _expected_numbers(criterion, view)
        numeric.sort(key=lambda item: not _is_expected(item[2], wanted, criterion.tolerance))
        for s, c, number in numeric[:1]:
            wb[s][c] = changed(number)
            touched.add((name, s, c))
            what = f"{s}!{c}: {number:g} -> {changed(number):g}"
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
        for _, heading, idx in sorted(mine, key=lambda i: (i[1], int(i[2]))):
            sec = doc.section(heading) if heading else doc.sections[0]
            if sec is None:
                continue
            lines = sec.text.splitlines()
            line = lines[int(idx)]
            if kind is PerturbationKind.BREAK_CITATION:
                new = _break(line, anchor_paths, view.paths)
            elif kind is PerturbationKind.CHANGE_NUMBER:
                number = _stated_number(line, criterion, view)
                if number is None:
                    continue
                new = _replace_number(line, *number)
            else:
                new = line
                for found in reversed(find_numbers(line)):
                    new = _replace_number(new, *found)
            if new != line:
                edits[(sec.heading, int(idx))] = new
                what = f"{kind.value} in section {sec.heading!r} line {int(idx) + 1}"
                break
        if not edits:
            return None
    touched = frozenset({(name, drop_section, "*")} if drop_section else
                        {(name, h, str(i)) for h, i in edits})
    _REPORT_WRITERS[fmt](source, out, edits, drop_section)
    return Perturbed(kind, criterion.criterion_id, name, out, touched, what)


def _replace_number(line: str, value: float, start: int, end: int) -> str:
    """The line with the number at [start, end) replaced by ``changed(value)``, spacing kept."""
    start += len(line[start:end]) - len(line[start:end].lstrip())
    return line[:start] + f"{changed(value):,.2f}" + line[end:]


def _stated_number(line: str, criterion: CriterionSpec, view: JudgeView) -> tuple[float, int, int] | None:
    """The number a line states for the criterion: the one equal to the expected value (at any usual scale),
    else the last number that is not part of a file name or a locator ("slide=2", "row 4")."""
    masked = line
    spans = [(f.start, f.end) for f in find_file_names(line, view.paths)]
    spans += [m.span() for pattern in (KEYED_LOCATOR_RE, SHEET_REF_RE) for m in pattern.finditer(line)]
    for start, end in spans:
        masked = masked[:start] + " " * (end - start) + masked[end:]
    numbers = find_numbers(masked)
    if not numbers:
        return None
    wanted = _expected_numbers(criterion, view)
    return next((n for n in numbers if _is_expected(n[0], wanted, criterion.tolerance)), numbers[-1])


def _expected_numbers(criterion: CriterionSpec, view: JudgeView) -> list[float]:
    """The values the criterion expects: its own, and its anchors' recovered from their spans."""
    expected = {criterion.expected_value} | {recover(a) for a in view.anchors_of(criterion)}
    return [x for x in expected if x is not None]


def _is_expected(value: float, wanted: list[float], tolerance: float) -> bool:
    """The value equals an expected one, as written or in thousands, millions or billions."""
    return any(matches_value(value * k, x, tolerance) for k in (1.0, 1e3, 1e6, 1e9) for x in wanted)


def _is_number_cell(doc: Workbook, sheet: str, cell: str) -> bool:
    data = doc.sheets.get(sheet, {}).get(cell)
    if data is None:
        return False
    value = data.value
    return data.formula is not None or (isinstance(value, int | float) and not isinstance(value, bool))


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

    from graphforge.judge.documents import heading_level

    shutil.copyfile(source, out)
    document = docx.Document(str(out))
    heading, idx, skipping = "", -1, False
    for paragraph in list(document.paragraphs):
        style = (paragraph.style.name if paragraph.style is not None else "") or ""
        if heading_level(style):
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


def _rewrite_pptx(
    source: Path, out: Path, edits: dict[tuple[str, int], str | None], drop: str | None
) -> None:
    """Apply line edits to a deck, in the order ``read_pptx`` reads it (a slide is a section headed by its
    title; its lines are the non-blank paragraphs of its other shapes, then its table rows); ``drop`` removes
    the first slide with that title."""
    from pptx import Presentation

    deck = Presentation(str(source))
    done: set[str] = set()  # titles already handled: only the first slide of a title is the section
    for slide in list(deck.slides):
        title_shape = slide.shapes.title
        has_title = title_shape is not None and title_shape.has_text_frame
        heading = title_shape.text_frame.text.strip() if has_title else ""
        if heading in done:
            continue
        done.add(heading)
        if drop is not None and heading == drop:
            slide_ids = deck.slides._sldIdLst  # python-pptx has no public call to delete a slide
            for sld_id in list(slide_ids):
                if deck.slides.get(int(sld_id.id)) is slide:
                    deck.part.drop_rel(sld_id.rId)
                    slide_ids.remove(sld_id)
            continue
        idx = -1
        for shape in slide.shapes:
            if shape is title_shape:
                continue
            if shape.has_text_frame:
                for para in shape.text_frame.paragraphs:
                    if not "".join(r.text for r in para.runs).strip():
                        continue
                    idx += 1
                    if (heading, idx) in edits:
                        _set_runs(para.runs, edits[(heading, idx)] or "")
            if getattr(shape, "has_table", False) and shape.has_table:
                for row in shape.table.rows:
                    idx += 1
                    if (heading, idx) in edits:
                        cells = (edits[(heading, idx)] or "").split("\t")
                        for cell, text in zip(row.cells, cells, strict=False):
                            cell.text = text
    deck.save(str(out))


def _set_runs(runs: Sequence[Any], text: str) -> None:
    """Put ``text`` in the first run (keeping its formatting) and empty the others."""
    for i, run in enumerate(runs):
        run.text = text if i == 0 else ""


_REPORT_WRITERS: dict[str, Callable[[Path, Path, dict[tuple[str, int], str | None], str | None], None]] = {
    "md": _rewrite_markdown, "docx": _rewrite_docx, "pptx": _rewrite_pptx}

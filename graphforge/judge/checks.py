"""Deterministic deliverable checks: the promised files exist, open as their format and have their structure.

A failed check makes the attempt a loss before any criterion is scored; the judge is not asked.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from graphforge.errors import SourceFormatError
from graphforge.judge.documents import Document, Report, Workbook, normalise_format, read_document
from graphforge.judge.formula import functions
from graphforge.judge.locations import parse_required_formula
from graphforge.models.spec import DeliverableSpec, TaskSpec


class DeliverableCheck(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    ok: bool
    problems: list[str] = Field(default_factory=list)
    # What the checks required of the file (the file itself, then each required section, sheet and
    # formula) and how many of those it has: none when it is missing or does not open.
    parts: int = 1
    present: int = 0


class DeliverableReport(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    ok: bool
    checks: list[DeliverableCheck]

    @property
    def reason(self) -> str:
        return "; ".join(f"{c.name}: {p}" for c in self.checks for p in c.problems)

    @property
    def parts(self) -> tuple[int, int]:
        """(present, required) over every deliverable's parts: how near the files came to passing, where a
        failed check makes the attempt a loss whatever else it holds."""
        return sum(c.present for c in self.checks), sum(c.parts for c in self.checks)


def find_file(name: str, files: dict[str, Path]) -> Path | None:
    """The collected file for a deliverable name: exact name first, then case-insensitive basename."""
    if name in files:
        return files[name]
    lowered = {Path(k).name.lower(): v for k, v in files.items()}
    return lowered.get(Path(name).name.lower())


def check_deliverables(
    spec: TaskSpec, files: dict[str, Path]
) -> tuple[DeliverableReport, dict[str, Document]]:
    """Check every deliverable of a spec; return the report and the documents that opened."""
    checks: list[DeliverableCheck] = []
    documents: dict[str, Document] = {}
    for deliverable in spec.deliverables:
        problems, document = check_one(deliverable, find_file(deliverable.name, files))
        parts = 1 + len(deliverable.required_sections) + len(deliverable.required_sheets) \
            + len(deliverable.required_formulas)
        if document is not None:
            documents[deliverable.name] = document
        checks.append(DeliverableCheck(name=deliverable.name, ok=not problems, problems=problems, parts=parts,
                                       present=parts - len(problems) if document is not None else 0))
    return DeliverableReport(ok=all(c.ok for c in checks), checks=checks), documents


def check_one(deliverable: DeliverableSpec, path: Path | None) -> tuple[list[str], Document | None]:
    if path is None or not path.is_file():
        return ["missing: the file was not produced"], None
    if path.stat().st_size == 0:
        return ["empty file"], None
    suffix = normalise_format(path.suffix)
    if suffix != normalise_format(deliverable.format):
        return [f"wrong format: {path.suffix or 'no extension'} instead of {deliverable.format}"], None
    try:
        document = read_document(path, deliverable.format)
    except SourceFormatError as exc:
        return [f"unreadable: {exc.problem}"], None
    problems = structure_problems(deliverable, document)
    return problems, document


def structure_problems(deliverable: DeliverableSpec, document: Document) -> list[str]:
    """Required sheets, required formulas (and their functions) and required sections."""
    problems: list[str] = []
    if isinstance(document, Workbook):
        evaluator = document.evaluator
        for sheet in deliverable.required_sheets:
            if evaluator.sheet_name(sheet) is None:
                problems.append(f"required sheet {sheet!r} is missing")
        for spec in deliverable.required_formulas:
            parsed = parse_required_formula(spec)
            if parsed is None:
                problems.append(f"required formula {spec!r} is not a cell reference")
                continue
            sheet, cell, func = parsed
            name = evaluator.sheet_name(sheet)
            data = document.sheets[name].get(cell) if name else None
            if data is None or not data.formula:
                problems.append(f"{sheet}!{cell} must hold a formula")
            elif func and func not in functions(data.formula):
                problems.append(f"{sheet}!{cell} must use {func}() but holds {data.formula}")
    elif isinstance(document, Report):
        for heading in deliverable.required_sections:
            if document.section(heading) is None:
                problems.append(f"required section {heading!r} is missing")
    return problems

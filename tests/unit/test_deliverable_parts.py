"""The count of required parts an attempt's deliverables hold, which the closed loop prints (where Q is 0
for all): from the deliverable checks themselves."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

from graphforge.judge.checks import check_deliverables
from graphforge.models.spec import DeliverableSpec, TaskSpec

REPORT = DeliverableSpec(deliverable_id="s/status.md", name="status.md", format="md",
                         required_sections=["Status by item", "Open items", "Sources"])
BOOK = DeliverableSpec(deliverable_id="s/review.xlsx", name="review.xlsx", format="xlsx",
                       required_sheets=["Review"], required_formulas=["Review!B2"])


def required_parts(spec: Any, files: dict[str, Path]) -> tuple[int, int]:
    report, _ = check_deliverables(cast(TaskSpec, spec), files)  # the checks read only its deliverables
    return report.parts


def test_each_file_and_each_required_part_it_holds_count(tmp_path: Path) -> None:
    spec = SimpleNamespace(deliverables=[REPORT, BOOK])
    report = tmp_path / "status.md"
    report.write_text("# Status\n\n## Status by item\n\nA: open\n\n## Sources\n\nREADME.md\n",
                      encoding="utf-8")
    # the report and two of its three sections; the workbook is missing with its sheet and formula
    assert required_parts(spec, {"status.md": report}) == (3, 7)
    assert required_parts(spec, {}) == (0, 7)
    report.write_text("", encoding="utf-8")  # an empty file opens as nothing
    assert required_parts(spec, {"status.md": report}) == (0, 7)


def test_a_file_in_another_format_holds_none_of_its_parts(tmp_path: Path) -> None:
    wrong = tmp_path / "status.md"
    wrong.write_text('{"Status by item": []}', encoding="utf-8")
    spec = SimpleNamespace(deliverables=[REPORT])
    assert required_parts(spec, {"status.md": wrong}) == (1, 4)
    renamed = tmp_path / "status.csv"
    renamed.write_text("## Status by item\n## Open items\n## Sources\n", encoding="utf-8")
    assert required_parts(spec, {"status.md": renamed}) == (0, 4)

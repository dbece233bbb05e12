"""A deliverable's required sections: found by their heading's name, not by a word inside a heading."""

from __future__ import annotations

from pathlib import Path

from graphforge.judge.checks import structure_problems
from graphforge.judge.documents import Report, read_document
from graphforge.models.spec import DeliverableSpec

GAPS = DeliverableSpec(deliverable_id="s/gaps.md", name="gaps.md", format="md",
                       required_sections=["Required items", "Gaps", "Sources"])


def _report(tmp_path: Path, text: str) -> Report:
    path = tmp_path / "gaps.md"
    path.write_text(text, encoding="utf-8")
    doc = read_document(path, "md")
    assert isinstance(doc, Report)
    return doc


def test_a_heading_that_opens_or_closes_with_the_name_is_that_section(tmp_path: Path) -> None:
    doc = _report(tmp_path, "# Gap analysis\n\n## 1. Required items (2019)\n\n- A\n\n## Summary of gaps\n\n"
                            "- B\n\n## Sources\n\nREADME.md\n")
    assert structure_problems(GAPS, doc) == []
    assert doc.section("Gaps") is not None and doc.section("Gaps").heading == "Summary of gaps"


def test_one_line_set_as_a_heading_is_not_every_section_it_mentions(tmp_path: Path) -> None:
    doc = _report(tmp_path, "## Required items: 6. Update the data files; I will see which ones are Gaps or "
                            "Sources and write them to the report later on\n")
    assert structure_problems(GAPS, doc) == ["required section 'Gaps' is missing",
                                             "required section 'Sources' is missing"]
    # nor does a name inside a word count
    assert _report(tmp_path, "## Outsources\n\ntext\n").section("Sources") is None

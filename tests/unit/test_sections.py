"""Sections that give facts their context: numbered headings, not running headers, footers or footnotes."""

from __future__ import annotations

from graphforge.evidence.base import WorkspaceSpan
from graphforge.evidence.text_facts import heading_of, prose_facts
from graphforge.models.evidence import FactKind


def test_running_footers_years_and_footnotes_are_not_section_titles() -> None:
    assert heading_of("3.2 Deliverables") == (2, "3.2 Deliverables")
    assert heading_of("2 Roles, Responsibilities and Scope") == (1, "2 Roles, Responsibilities and Scope")
    assert heading_of("2015 USEITI Executive Summary — Extractive Revenue Appendix 7") is None  # a year
    assert heading_of("7 USEITI MSG Advisory Committee Meeting, “Decisions,") is None  # a footnote
    assert heading_of("33 states produce oil, gas, or coal, while every state") is None  # wrapped prose
    # A footer repeated on every page ("4 Annual Report" on page 4, "5 Annual Report" on page 5, ...) never
    # becomes the section a requirement sits under; the real numbered heading does.
    pages = []
    for n in range(1, 6):
        body = f"{n} Annual Report\n"
        if n == 3:
            body += "3.1 Records Management\nEach office shall designate a records liaison every year.\n"
        pages.append(WorkspaceSpan(span_id=f"r:page={n}", file_sha256="r", path="report.pdf",
                                   locator=f"page={n}", kind="page", ordinal=n - 1,
                                   text=body + f"{n} Annual Report"))
    (req,) = [f for f in prose_facts(pages) if f.kind is FactKind.REQUIREMENT]
    assert "3.1 Records Management" in req.section and "Annual Report" not in req.section, req.section

"""Documents read by their structure: headings without their markup, an obligation with its items, and a
list that requires things told apart from a list that announces them."""

from __future__ import annotations

from pathlib import Path

from graphforge.evidence.base import WorkspaceSpan
from graphforge.evidence.rule_based import RuleBasedExtractor, axis_ticks
from graphforge.evidence.text_facts import heading_of, prose_facts
from graphforge.models.evidence import FactKind
from graphforge.parsers import parse_file
from graphforge.parsers.base import ParseLimits
from graphforge.specs.families.data_entry_form import first_dates
from graphforge.specs.families.gap_analysis import MIN_REQUIRING, requiring_share
from graphforge.specs.templates import GraphFact


def _span(text: str) -> WorkspaceSpan:
    return WorkspaceSpan(span_id="f:section=1", file_sha256="f", locator="section=1", kind="section",
                         ordinal=0, text=text, path="charter.md")


def test_a_linked_heading_is_named_by_its_words() -> None:
    assert heading_of("## [F.7 Support for Open Source Tools](https://example.org/f7)") == (
        2, "F.7 Support for Open Source Tools")


def test_a_requirement_lead_in_carries_its_items() -> None:
    text = ("# Project charter\n\n## Graduation\n\nA project must:\n\n- keep a documented release process\n"
            "- have maintainers from two organisations\n- adopt the code of conduct\n\n"
            "The board meets monthly.")
    reqs = [f for f in prose_facts([_span(text)]) if f.kind is FactKind.REQUIREMENT]
    assert len(reqs) == 1
    assert reqs[0].value == "A project must:"  # the value stays verbatim in the span
    for item in ("documented release process", "two organisations", "code of conduct"):
        assert item in reqs[0].statement
    assert "board meets" not in reqs[0].statement


def test_a_list_that_requires_is_told_from_a_list_that_announces() -> None:
    announced = ["Solicited every 3 years.", "$2M awarded in 2020 to 8 programs", "To be released next year"]
    required = ["Provide a data management plan", "The applicant must describe the software licence",
                "Include an assessment of the impact on the community"]
    assert requiring_share(announced, "F.7 Support for Open Source Tools") < MIN_REQUIRING
    assert requiring_share(required, "Proposal elements") >= MIN_REQUIRING
    # A heading that names requirements makes a short list of nouns a requirement list.
    nouns = ["Title page", "Budget", "Letters of support"]
    assert requiring_share(nouns, "Required documents") >= MIN_REQUIRING


def _fact(fact_id: str, kind: str, value: str, ordinal: int, span_text: str) -> GraphFact:
    return GraphFact(fact_id=fact_id, statement=value, value=value, value_num=None, unit=None, metric=None,
                     entity=None, period=None, span_id=f"s{ordinal}", locator=f"page={ordinal + 1}",
                     ordinal=ordinal, span_text=span_text, path="memo.pdf", role="core", kind=kind)


def test_a_document_s_first_date_is_the_one_a_reader_meets_first_near_its_title() -> None:
    page1 = "Quarterly memo\nIssued 3 March 2024, replacing the note of 12 January 2024."
    title = _fact("t", "metadata", "Quarterly memo", 0, page1)
    # Ids sort the other way round from the text, as fact ids (hashes) do.
    later_on_page = _fact("a", "date", "12 January 2024", 0, page1)
    first_on_page = _fact("b", "date", "3 March 2024", 0, page1)
    footnote = _fact("0", "date", "1 May 2019", 6, "7 See the review of 1 May 2019.")
    dates = first_dates(title, [footnote, later_on_page, first_on_page])
    assert [d.value for d in dates] == ["3 March 2024", "12 January 2024"]


def test_a_first_line_that_is_a_sentence_is_no_title() -> None:
    text = ("The Transparency Initiative, or TI, is a global standard that promotes open\n"
            "and accountable management of public revenues.\n\nMore text follows here.")
    titles = [f.value for f in prose_facts([_span(text)]) if f.entity == "title"]
    assert titles == []
    titled = [f.value for f in prose_facts([_span("Annual Report on Public Revenues\n\nThe report is long.")])
              if f.entity == "title"]
    assert titled == ["Annual Report on Public Revenues"]


def test_an_xml_document_is_titled_by_its_metadata_not_its_root_element(tmp_path: Path) -> None:
    path = tmp_path / "plan.xml"
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<security-plan uuid="66c2a1c8-5830-48bd-8fdd-55a1c3a52888">\n'
        "  <metadata><title>Logging System Security Plan</title><version>1.1</version></metadata>\n"
        "  <characteristics><system-name>Logging System</system-name></characteristics>\n"
        "</security-plan>\n", encoding="utf-8")
    parsed = parse_file(path, ParseLimits())
    spans = [WorkspaceSpan(span_id=f"p:{s.locator}", file_sha256="p", locator=s.locator, kind="x", ordinal=i,
                           text=s.text, path="plan.xml") for i, s in enumerate(parsed.spans)]
    facts = RuleBasedExtractor().extract(spans).facts
    assert [f.value for f in facts if f.entity == "title"] == ["Logging System Security Plan"]
    assert [f.value for f in facts if f.entity == "version"] == ["1.1"]
    # A version names a release; it measures nothing.
    assert not [f for f in facts if f.kind is FactKind.QUANTITY and f.value == "1.1"]


def test_a_chart_s_axis_ticks_are_no_facts() -> None:
    page = ("Revenue from extraction on federal lands\n$2,200,000,000\n$2,000,000,000\n$1,800,000,000\n"
            "$1,600,000,000\nIn 2013 revenue of DOI was $1,640,000,000 in total.")
    assert axis_ticks(page) == {"$2,200,000,000", "$2,000,000,000", "$1,800,000,000", "$1,600,000,000"}
    assert axis_ticks("Budget\n$1,200\nStaff\n$300\n$1,000") == set()


def test_a_cover_title_set_in_capitals_over_several_lines_is_read_whole() -> None:
    cover = ("SPRING 2019 SECTION 508\nPROGRAM MATURITY\nREPORT: EXECUTIVE\nSUMMARY\nAugust 2019\n"
             "The report follows.")
    span = WorkspaceSpan(span_id="r:page=1", file_sha256="r", locator="page=1", kind="page", ordinal=0,
                         text=cover, path="report.pdf")
    titles = [f.value for f in prose_facts([span]) if f.entity == "title"]
    assert titles == ["SPRING 2019 SECTION 508\nPROGRAM MATURITY\nREPORT: EXECUTIVE\nSUMMARY"]


def test_a_schema_key_or_a_link_is_no_title() -> None:
    for first in ('$schema: "http://json-schema.org/draft-07/schema#"',
                  "Generated at: Tue Oct 31 2017 12:55:24 GMT-0400 (Eastern Daylight Time)",
                  "Last updated: 2024-01-05",
                  'Accessibility Report For "https://localhost:3333/#!/section/employer"'):
        span = WorkspaceSpan(span_id="s:section=1", file_sha256="s", locator="section=1", kind="section",
                             ordinal=0, text=f"{first}\nMore lines follow.", path="schema.json")
        assert [f.value for f in prose_facts([span]) if f.entity == "title"] == []

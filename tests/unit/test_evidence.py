"""Rule-based evidence extraction on hand-made spans: figures, labels, periods, derive/compare/reconcile."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from graphforge.evidence.base import WorkspaceSpan, recoverability_problem, verify
from graphforge.evidence.links import agree, cross_file_edges
from graphforge.evidence.rule_based import RuleBasedExtractor
from graphforge.figures.numbers import find_periods, parse_figure, period_contains, scale_of
from graphforge.models.evidence import DependencyKind, FactRow
from graphforge.parsers import parse_file
from graphforge.parsers.base import ParseLimits
from graphforge.stages.build_evidence import build


def span(
    sha: str,
    locator: str,
    text: str,
    path: str,
    ordinal: int = 0,
    formulas: dict[str, str] | None = None,
) -> WorkspaceSpan:
    return WorkspaceSpan(
        span_id=f"{sha}:{locator}",
        file_sha256=sha,
        locator=locator,
        kind="x",
        ordinal=ordinal,
        text=text,
        formulas_json=json.dumps(formulas) if formulas else "",
        path=path,
    )


@pytest.mark.parametrize(("text", "number", "unit"), [
    ("$1,234.56", 1234.56, "USD"), ("(1,234)", -1234.0, None), ("-12.5%", -12.5, "%"),
    ("EUR 9,115 thousand", 9_115_000.0, "EUR"), ("1.2 million", 1_200_000.0, None), ("4580", 4580.0, None),
    ("USD 4,500", 4500.0, "USD"), ("€3.2m", 3_200_000.0, "EUR"),
])
def test_figures_parse_currency_percent_separators_and_negative_parentheses(text: str, number: float,
                                                                            unit: str | None) -> None:
    figure = parse_figure(text)
    assert figure is not None and figure.number == pytest.approx(number) and figure.unit == unit


def test_periods_scales_and_containment() -> None:
    assert [
        p for p, _, _ in find_periods("Q3 2024, 2024 Q2, Sep 2024, FY2024, H1 2024, first half of 2023")
    ] == ["2024-Q3", "2024-Q2", "2024-09", "FY2024", "2024-H1", "2023-H1"]
    assert scale_of("Revenue by segment (EUR thousand)") == 1000 and scale_of("revenue_eur_k") == 1000
    assert scale_of("USD millions") == 1e6 and scale_of("Revenue") == 1
    assert period_contains("2024-H1", "2024-Q2") and not period_contains("2024-Q2", "2024-Q2")


LEDGER = [
    span("aa", "sheet=Q2!A1:A1", "Acme - ledger Q2 2024 (EUR thousand)", "ledger.xlsx", 0),
    span("aa", "sheet=Q2!A2:C2", "Segment\tRevenue\tCosts", "ledger.xlsx", 1),
    span("aa", "sheet=Q2!A3:C3", "North\t100\t65", "ledger.xlsx", 2),
    span("aa", "sheet=Q2!A4:C4", "South\t50\t30", "ledger.xlsx", 3),
    span(
        "aa", "sheet=Q2!A5:C5", "Total\t150\t95", "ledger.xlsx", 4, {"B5": "=SUM(B3:B4)", "C5": "=SUM(C3:C4)"}
    ),
]
REPORT = [
    span(
        "bb",
        "page=2",
        "2. Revenue by segment (EUR thousand)\n\n  Segment   Q1 2024   Q2 2024\n"
        "  North        90       100\n  South        40        50\n  Total       130       150\n",
        "report.pdf",
        0,
    )
]
VERTICAL = [
    span(
        "cc",
        "page=1",
        "Costs by segment (EUR thousand)\nSegment\nQ2 2024\nNorth\n60\nSouth\n30\nTotal\n90",
        "draft.pdf",
        0,
    )
]
CSV = [span("dd", "row=1", "quarter,segment,revenue_eur_k", "export.csv", 0),
       span("dd", "row=2", "Q2 2024,North,100", "export.csv", 1)]
MEMO = [
    span(
        "ee",
        "para=3",
        "Group revenue for Q2 2024 was EUR 150 thousand, up from EUR 130 thousand in Q1 2024.",
        "memo.docx",
        0,
    ),
    span("ee", "table=1", "Metric\tQ1 2024\tQ2 2024\nRevenue\t130\t150", "memo.docx", 1),
    span("ee", "para=4", "All figures in EUR thousand.", "memo.docx", 2),
]


def _facts(spans: list[WorkspaceSpan]) -> dict[tuple[str | None, str | None, str | None, str], FactRow]:
    extraction = RuleBasedExtractor().extract(spans)
    return {(f.metric, f.entity, f.period, f.value): f for f in extraction.facts}


def test_spreadsheet_rows_give_metric_entity_period_scale_and_cell_provenance() -> None:
    facts = _facts(LEDGER)
    north = facts[("revenue", "North", "2024-Q2", "100")]
    assert north.span_id == "aa:sheet=Q2!A3:C3" and north.value_num == 100_000 and north.unit == "EUR"
    assert facts[("costs", None, "2024-Q2", "95")].value_num == 95_000  # "Total" row: no entity
    assert all(f.extractor == "rule-based" for f in facts.values())


def test_pdf_tables_in_rows_or_one_cell_per_line_are_read() -> None:
    report = _facts(REPORT)
    assert report[("revenue", "South", "2024-Q1", "40")].value_num == 40_000
    assert ("revenue", None, "2024-Q2", "150") in report
    draft = _facts(VERTICAL)
    assert draft[("costs", "North", "2024-Q2", "60")].value_num == 60_000
    assert ("costs", None, "2024-Q2", "90") in draft


def test_csv_header_names_the_measure_and_the_row_names_entity_and_period() -> None:
    facts = _facts(CSV)
    assert facts[("revenue", "North", "2024-Q2", "100")].value_num == 100_000


def test_prose_figures_take_their_nearest_period_and_the_subject() -> None:
    facts = _facts(MEMO)
    assert facts[("revenue", None, "2024-Q2", "EUR 150 thousand")].value_num == 150_000
    assert facts[("revenue", None, "2024-Q1", "EUR 130 thousand")].value_num == 130_000
    assert facts[("revenue", None, "2024-Q2", "150")].value_num == 150_000  # memo table, scale from the note


def test_totals_give_derive_edges_and_files_give_compare_and_reconcile() -> None:
    spans = LEDGER + REPORT + VERTICAL + MEMO
    extraction, edges = build(spans)
    by_id = {f.fact_id: f for f in extraction.facts}
    derive = {
        (by_id[e.src_fact_id].value, by_id[e.dst_fact_id].value)
        for e in edges
        if e.kind is DependencyKind.DERIVE
    }
    assert {("150", "100"), ("150", "50"), ("95", "65"), ("95", "30"), ("130", "90"), ("130", "40")} <= derive
    assert ("90", "60") in derive  # one-cell-per-line table, column total
    kinds = {(e.kind, frozenset((by_id[e.src_fact_id].span_id[:2], by_id[e.dst_fact_id].span_id[:2])),
              by_id[e.src_fact_id].metric, by_id[e.src_fact_id].entity) for e in edges}
    # ledger costs total 95 vs draft 90: a reconcile; ledger revenue North 100 = report North 100: a compare
    assert (DependencyKind.RECONCILE, frozenset({"aa", "cc"}), "costs", None) in kinds
    assert (DependencyKind.COMPARE, frozenset({"aa", "bb"}), "revenue", "North") in kinds
    assert any(e.kind is DependencyKind.INTERPRET for e in edges)  # memo sentence restates memo table
    assert build(spans) == (extraction, edges)  # deterministic ids and order


def test_agreement_allows_rounding_of_the_less_precise_figure() -> None:
    a = FactRow(fact_id="a", span_id="s", statement="", value="9.1 million", value_num=9.1e6, extractor="x")
    b = FactRow(
        fact_id="b", span_id="s", statement="", value="9,115", value_num=9_115_000, scale=1000, extractor="x"
    )
    c = FactRow(
        fact_id="c", span_id="s", statement="", value="9,215", value_num=9_215_000, scale=1000, extractor="x"
    )
    assert agree(a, b) and not agree(a, c) and not agree(b, c)


def test_unrecoverable_facts_are_rejected_and_counted() -> None:
    s = span("ff", "para=1", "Revenue was 1,200.", "x.txt")
    good = FactRow(
        fact_id="g", span_id=s.span_id, statement="", value="1,200", value_num=1200.0, extractor="llm:m"
    )
    invented = good.model_copy(update={"fact_id": "i", "value": "1,300", "value_num": 1300.0})
    wrong_num = good.model_copy(update={"fact_id": "w", "value_num": 999.0})
    assert recoverability_problem(good, s.text) is None
    out = verify([good, invented, wrong_num], [s])
    assert [f.fact_id for f in out.facts] == ["g"]
    assert sorted(r.reason.split(" ")[0] for r in out.rejected) == ["value", "value_num"]


def test_duplicate_file_under_two_paths_yields_no_self_edges() -> None:
    copy = [s.model_copy(update={"path": "ledger copy.xlsx"}) for s in LEDGER]
    extraction, edges = build(LEDGER + copy)
    assert all(e.src_fact_id != e.dst_fact_id for e in edges)
    assert len(extraction.facts) == len(RuleBasedExtractor().extract(LEDGER).facts)
    assert not cross_file_edges([], [])


def test_csv_row_span_holding_a_line_break_does_not_stop_extraction() -> None:
    # What parse_csv makes of a one-column export whose quoted cell holds a line break.
    spans = [
        *CSV,
        span("c" * 64, "row=1", "Note", "single.csv", 0),
        span("c" * 64, "row=2", "Restated:\nsee memo", "single.csv", 1),
    ]
    extraction, _ = build(spans, RuleBasedExtractor())
    assert any(f.value == "100" for f in extraction.facts)


def _parsed_spans(path: Path, max_span_chars: int) -> list[WorkspaceSpan]:
    parsed = parse_file(path, ParseLimits(max_span_chars=max_span_chars))
    assert parsed.valid, parsed.invalid_reason
    return [
        span(parsed.sha256, s.locator, s.text, path.name, i, json.loads(s.formulas_json or "null"))
        for i, s in enumerate(parsed.spans)
    ]


def test_a_survey_export_gives_scores_under_their_headers_not_codes_or_attributes(tmp_path: Path) -> None:
    # A wide survey export: long rows are stored in parts; questionnaire codes (Q1..Q21B_3) head answer
    # columns; bracket columns are attributes of the row, not part of its name.
    notes = "free text answer " * 30
    header = ["Reporting Entity Name", "Maturity Bracket", "Program Office Calculation", "Total FTEs",
              "Q1", "Q2", "Q5", "Q21B_3", "Notes", "Training Calculation"]
    rows = [["Defense Health Agency (DHA)", "Low", "2.5", "19", "1", "18", "3", "7", notes, "1.5625"],
            ["Women's Bureau (WB)", "Moderate", "3.75", "4", "2", "31", "1", "0", notes, "2.25"]]
    path = tmp_path / "survey.csv"
    with path.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows([header, *rows])
    spans = _parsed_spans(path, max_span_chars=300)
    assert any(";cols=" in s.locator for s in spans)  # the rows really were split
    facts = RuleBasedExtractor().extract(spans).facts
    got = {(f.metric, f.entity, f.value) for f in facts}
    assert ("program office calculation", "Defense Health Agency DHA", "2.5") in got
    assert ("ftes", "Women s Bureau WB", "4") in got  # metric keys drop "total"
    # The score after the long notes cell sits in a later part: its fact is anchored there, in column J.
    late = next(f for f in facts if f.value == "1.5625")
    assert late.metric == "training calculation" and late.entity == "Defense Health Agency DHA"
    by_id = {s.span_id: s for s in spans}
    assert ";cols=" in by_id[late.span_id].locator and "1.5625" in by_id[late.span_id].text
    # Answers under questionnaire codes are not quantities; brackets never join the entity.
    assert not {f.value for f in facts} & {"18", "31", "7"}
    assert not any("Low" in (f.entity or "") or "Moderate" in (f.entity or "") for f in facts)


def test_quarter_headers_are_not_questionnaire_codes() -> None:
    rows = ["Segment\tQ1\tQ2\tQ3\tQ4", "North\t100\t120\t130\t150"]
    spans = [span("qq", f"row={i + 1}", t, "q.csv", i) for i, t in enumerate(rows)]
    facts = RuleBasedExtractor().extract(spans).facts
    assert {(f.entity, f.value) for f in facts} >= {("North", "100"), ("North", "150")}


def test_table_quantities_over_the_per_file_cap_are_counted_not_read() -> None:
    rows = ["Account\t2014\t2015"] + [f"Account {i}\t{100 + i}\t{200 + i}" for i in range(50)]
    spans = [span("cap", f"row={i + 1}", t, "outlays.csv", i) for i, t in enumerate(rows)]
    whole = RuleBasedExtractor().extract(spans)
    assert len([f for f in whole.facts if f.kind == "quantity"]) == 100 and whole.capped == {}
    # Each row is also one record, keyed by its first cell (the cap is on quantities only).
    records = sorted(f.value for f in whole.facts if f.kind == "record")
    assert records == sorted(f"Account {i}" for i in range(50))
    capped = RuleBasedExtractor(max_table_facts=10).extract(spans)
    quantities = [f for f in capped.facts if f.kind == "quantity"]
    # Rows are read whole, in file order, until the cap: 5 rows of 2 figures; the other 45 are counted.
    assert {f.entity for f in quantities} == {f"Account {i}" for i in range(5)}
    assert capped.capped == {"outlays.csv": 45}
    assert all(f.metric == "outlays" for f in quantities)  # the file name says what the figures are


def test_a_withheld_record_does_not_rename_the_columns() -> None:
    # A production sheet: a record whose volume is withheld ("W") and whose FIPS code is blank has no
    # figure at all; it is a record, not a new header, so the next record's FIPS code stays an identifier.
    rows = [
        "Calendar Year\tProduct\tState\tFIPS Code\tCounty\tProduction Volume",
        "2008\tGas (mcf)\tLA\t22061\tLincoln Parish\t28159",
        "2008\tHelium (mcf)\tWY\t\tSweetwater County\tW",
        "2008\tMagnesium Chloride Brine (tons)\tUT\t49045\tTooele County\tW",
        "2009\tGas (mcf)\tLA\t22061\tLincoln Parish\t30114",
    ]
    spans = [span("wh", f"sheet=Data!A{i + 1}:F{i + 1}", t, "production.xlsx", i) for i, t in enumerate(rows)]
    facts = [f for f in RuleBasedExtractor().extract(spans).facts if f.kind == "quantity"]
    assert {f.value for f in facts} == {"28159", "30114"}
    assert {(f.metric, f.period) for f in facts} == {("volume", "2008"), ("volume", "2009")}


def test_a_header_naming_its_year_gives_the_period() -> None:
    rows = ["Corporate Name\tRevenue Type\tCY 2013 Revenues", "CHUZA OIL CO\tONRR/BLM - Rents\t516"]
    spans = [span("cy", f"sheet=Data!A{i + 1}:C{i + 1}", t, "by_company.xlsx", i) for i, t in enumerate(rows)]
    [fact] = [f for f in RuleBasedExtractor().extract(spans).facts if f.kind == "quantity"]
    assert (fact.metric, fact.period, fact.value) == ("revenue", "2013", "516")


def test_an_amount_that_reads_as_a_year_is_an_amount_not_a_new_header() -> None:
    rows = [
        "Corporate Name\tRevenue Type\tCommodity\tCY 2013 Revenues",
        "GILES THOMAS\tONRR/BLM - Rents\tOil & Gas\t2082",
        "INTREPID POTASH INC\tBLM - Permit Fees\tPotassium\t120",
    ]
    spans = [span("yr", f"sheet=Data!A{i + 1}:D{i + 1}", t, "by_company.xlsx", i) for i, t in enumerate(rows)]
    facts = [f for f in RuleBasedExtractor().extract(spans).facts if f.kind == "quantity"]
    assert {(f.period, f.value) for f in facts} == {("2013", "2082"), ("2013", "120")}


def test_wrapped_lines_clause_dates_front_matter_and_lead_ins() -> None:
    page = (
        "title: Executive Summary\n"
        "The reconciliation process included the following steps:\n"
        "• Companies completed reporting\n"
        "templates directly to the IA\n"
        "• The IA compared the figures\n"
        "The contractor shall notify the Contracting\n"
        "Officer within ten days of any change.\n"
        "52.204-21 Basic Safeguarding of Covered Contractor Information Systems (JAN 2017)\n"
        "12 Bureau of Land Management, Mineral Materials Program, March 2014\n"
    )
    facts = RuleBasedExtractor().extract([span("tx", "page=1", page, "report.pdf")]).facts
    by_kind: dict[str, list[FactRow]] = {}
    for f in facts:
        by_kind.setdefault(f.kind, []).append(f)
    assert [f.value for f in by_kind["metadata"] if f.entity == "title"] == ["Executive Summary"]
    items = {f.value: f.entity for f in by_kind["list_item"]}
    assert items["Companies completed reporting\ntemplates directly to the IA"] == (
        "The reconciliation process included the following steps")
    assert any(f.value.endswith("Officer within ten days of any change.") for f in by_kind["requirement"])
    assert "date" not in by_kind  # a clause's version date and a footnote's citation date are not dates


def test_subheadings_descriptions_front_matter_and_survey_answers_are_not_facts() -> None:
    guide = (
        "layout: page\n"
        "title: Public Budget Database\n"
        "a. Sources of data\n"
        "The database is compiled from agency submissions.\n"
        "Statutes generally specify what must be paid to eligible recipients.\n"
    )
    facts = RuleBasedExtractor().extract([span("gd", "page=1", guide, "guide.pdf")]).facts
    assert [f.value for f in facts if f.entity == "title"] == ["Public Budget Database"]
    assert not [f for f in facts if f.kind in ("list_item", "requirement")]
    rows = ["Reporting Entity Name\tq2 description\tq33jinternal"] + [
        "Agency A\tA centralized program office\t12",
    ]
    spans = [span("sv", f"row={i + 1}", t, "fy25.csv", i) for i, t in enumerate(rows)]
    assert not [f for f in RuleBasedExtractor().extract(spans).facts if f.kind in ("definition", "quantity")]


def test_titles_come_from_front_matter_or_the_top_heading_not_sections_ids_or_broken_lines() -> None:
    md = "---\nlayout: page\ntitle: Executive Summary\n---\n## Highlighted Findings\nText.\n"
    facts = RuleBasedExtractor().extract([span("md", "section=1", md, "summary.md")]).facts
    assert [f.value for f in facts if f.entity == "title"] == ["Executive Summary"]
    cover = "U.S. Department of Labor,\nWage and Hour Division\nThe project shall start.\n"
    facts = RuleBasedExtractor().extract([span("cv", "page=1", cover, "rfq.pdf")]).facts
    titles = [f.value for f in facts if f.entity == "title"]
    assert titles == ["U.S. Department of Labor,\nWage and Hour Division"]
    tests = "# TCRW-01 Login page\nSteps.\n"
    facts = RuleBasedExtractor().extract([span("tc", "section=1", tests, "cases.md")]).facts
    assert not [f for f in facts if f.entity == "title"]


def test_a_requirement_begun_on_the_line_above_keeps_its_subject() -> None:
    page = "Companies that received royalty relief in earlier years\nmust start paying once prices rise.\n"
    facts = RuleBasedExtractor().extract([span("bg", "page=2", page, "report.pdf")]).facts
    [req] = [f for f in facts if f.kind == "requirement"]
    assert req.value == page.strip()


def test_a_pdf_list_without_a_lead_in_is_not_named_by_the_running_header() -> None:
    page = "2015 USEITI Executive Summary 59\n• Companies completed templates\n• The IA compared figures\n"
    facts = RuleBasedExtractor().extract([span("ph", "page=59", page, "summary.pdf")]).facts
    assert not [f for f in facts if f.kind == "list_item"]


def test_a_section_number_in_running_text_is_not_a_quantity() -> None:
    page = "Acquisition services business system web portal, refer to Section 6.11\n"
    facts = RuleBasedExtractor().extract([span("rf", "section=16", page, "pws.md")]).facts
    assert not [f for f in facts if f.kind == "quantity"]

"""Attributes and records of real-looking tables, and the links they make between files.

A record is named by its most specific name column (never a code or a number); an attribute is a short
text cell under a column saying what it is; both keep their text verbatim from the row. Two files link on
a record or attribute only when its key names one row in each."""

from __future__ import annotations

from graphforge.evidence.base import WorkspaceSpan
from graphforge.evidence.doc_links import document_edges
from graphforge.evidence.text_facts import table_facts
from graphforge.models.evidence import DependencyKind, FactKind

BUDGET = ["Agency Code", "Agency Name", "Bureau Code", "Bureau Name", "Account Code", "Account Name", "2015"]
SYSTEMS = ["System", "Owner", "Status", "Frequency", "FY2024 cost"]


def _rows(sha: str, path: str, header: list[str], rows: list[list[str]]):  # type: ignore[no-untyped-def]
    out = []
    for i, cells in enumerate(rows, start=2):
        span = WorkspaceSpan(span_id=f"{sha}:row={i}", file_sha256=sha, path=path, locator=f"row={i}",
                             kind="row", ordinal=i - 1, text="\t".join(cells))
        out.append((span, cells, f"row={i}"))
    return out


def test_a_budget_row_is_named_by_its_account_not_its_agency_or_a_code() -> None:
    rows = _rows("b", "fy2016/budauth.csv", BUDGET,
                 [["001", "Legislative Branch", "15", "Architect of the Capitol", "0160",
                   "Capitol complex security", "1,200"]])
    facts = table_facts(BUDGET, rows)
    (record,) = [f for f in facts if f.kind is FactKind.RECORD]
    assert record.value == "Capitol complex security"
    assert "account name=capitol complex security" in (record.normalized or "")
    assert "2015=1200" in (record.normalized or "")  # a figure is compared by its value
    attributes = {(f.metric, f.value) for f in facts if f.kind is FactKind.ATTRIBUTE}
    assert attributes == {("agency name", "Legislative Branch"), ("bureau name", "Architect of the Capitol")}
    assert all(f.value in rows[0][0].text for f in facts)


def test_owner_and_frequency_are_attributes_and_amounts_are_not() -> None:
    rows = _rows("s", "systems.csv", SYSTEMS, [["Payroll", "OCIO", "Active", "Monthly", "1,200"]])
    facts = table_facts(SYSTEMS, rows)
    got = {(f.kind, f.statement.split(" (")[0]) for f in facts if f.kind is not FactKind.RECORD}
    assert got == {(FactKind.ATTRIBUTE, "Owner of Payroll is 'OCIO'"),
                   (FactKind.ATTRIBUTE, "Frequency of Payroll is 'Monthly'"),
                   (FactKind.STATUS, "Status of Payroll is 'Active'")}


def test_a_record_in_two_files_links_only_when_its_key_names_one_row_in_each() -> None:
    old = _rows("a", "inventory_2023.csv", SYSTEMS, [["Payroll", "OCIO", "Active", "Monthly", "1,200"],
                                                     ["Grants", "OGM", "Active", "Weekly", "800"],
                                                     ["Grants", "OGM", "Retired", "Weekly", "0"]])
    new = _rows("c", "inventory_2024.csv", SYSTEMS, [["Payroll", "OCIO", "Active", "Quarterly", "1,300"],
                                                     ["Grants", "OGM", "Active", "Weekly", "900"]])
    facts = table_facts(SYSTEMS, old) + table_facts(SYSTEMS, new)
    spans = [span for span, _, _ in old + new]
    edges = document_edges(facts, spans)
    by_id = {f.fact_id: f for f in facts}
    linked = {(by_id[e.src_fact_id].kind, by_id[e.src_fact_id].entity, by_id[e.src_fact_id].metric, e.kind)
              for e in edges if by_id[e.src_fact_id].kind in (FactKind.RECORD, FactKind.ATTRIBUTE)
              and e.kind in (DependencyKind.COMPARE, DependencyKind.RECONCILE)}
    # Payroll is one row in each file: its record changed (reconcile), its owner did not (compare), its
    # frequency did (reconcile). Grants is two rows in 2023: no link on it at all.
    assert linked == {
        (FactKind.RECORD, "Payroll", "record", DependencyKind.RECONCILE),
        (FactKind.ATTRIBUTE, "Payroll", "owner", DependencyKind.COMPARE),
        (FactKind.ATTRIBUTE, "Payroll", "frequency", DependencyKind.RECONCILE),
    }
    assert all(e.note for e in edges)
    # The two files are versions of one inventory (their names differ by the year): 2024 supersedes 2023.
    assert any(e.kind is DependencyKind.SUPERSEDES for e in edges)



def test_a_table_without_a_name_column_gives_rows_not_records() -> None:
    # A production log is keyed by year, product and county: its "Category" cell ("Federal") names nothing,
    # so the table yields neither records nor "State/Offshore Region of Federal" attributes.
    header = ["Calendar Year", "Product", "State/Offshore Region", "FIPS Code", "CPS/Planning Area",
              "Production Volume", "Onshore/Offshore", "Category"]
    rows = _rows("p", "production.xlsx", header,
                 [["2008", "Gas (mcf)", "NV", "32001", "Churchill County", "448993874.74", "Onshore",
                   "Federal"]])
    assert [f for f in table_facts(header, rows) if f.kind in (FactKind.RECORD, FactKind.ATTRIBUTE)] == []
    # A label cell or a path standing where a header should be is not a column name either.
    odd = ["File/URL:", "/section/employer", "--"]
    rows = _rows("q", "remediation.xlsx", odd, [["2.2 Web: Images", "A Web image has no ALT", "x"]])
    assert [f for f in table_facts(odd, rows) if f.kind is FactKind.RECORD] == []

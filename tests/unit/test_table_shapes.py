"""Tables read by their shape, not their file name: key columns (running numbers, steps, flags, codes,
identifiers) are never quantities; constant, link and filler cells never name a row; a sheet named by a year
dates its figures; lists of ids are no numbers; link-only bullets and HTML comments are no list items; a
count is no money amount; a guessed table's label that names two values names neither. Every case is a
small file written here in its real format (CSV, XLSX, Markdown) and read by the real parsers."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import openpyxl

from graphforge.evidence.base import WorkspaceSpan
from graphforge.evidence.rule_based import RuleBasedExtractor
from graphforge.evidence.text_facts import is_filler, placeholder_or_link
from graphforge.figures.numbers import find_figures, parse_figure
from graphforge.models.evidence import FactKind, FactRow
from graphforge.parsers import parse_file
from graphforge.parsers.base import ParseLimits


def _facts(path: Path) -> list[FactRow]:
    parsed = parse_file(path, ParseLimits())
    assert parsed.valid, parsed.invalid_reason
    spans = [
        WorkspaceSpan(span_id=f"{parsed.sha256}:{s.locator}", file_sha256=parsed.sha256, locator=s.locator,
                      kind="x", ordinal=i, text=s.text, formulas_json=s.formulas_json or "", path=path.name)
        for i, s in enumerate(parsed.spans)
    ]
    return RuleBasedExtractor().extract(spans).facts


def _csv(path: Path, rows: list[list[object]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(rows)
    return path


def _quantities(facts: list[FactRow]) -> list[FactRow]:
    return [f for f in facts if f.kind == FactKind.QUANTITY]


def test_a_tracker_s_step_flag_code_and_id_columns_are_keys_not_quantities(tmp_path: Path) -> None:
    rows: list[list[object]] = [["Step", "Task", "Attachments", "Tier", "Case number", "Hours spent"]]
    hours = [3.5, 12.25, 7.0, 1.75, 4.5, 9.0, 2.25]
    for i, h in enumerate(hours):
        rows.append([i % 4 + 1, f"Review file {chr(65 + i)}", i % 2, [1, 2, 3, 2, 1, 3, 2][i],
                     f"{483920 + 17 * i}", h])
    facts = _quantities(_facts(_csv(tmp_path / "tracker.csv", rows)))
    assert sorted(float(f.value) for f in facts) == sorted(hours)
    assert {f.metric for f in facts} == {"hours spent"}
    # The task names the row; the step number never does.
    assert {f.entity for f in facts} == {f"Review file {chr(65 + i)}" for i in range(len(hours))}


def test_a_count_column_that_counts_stays_a_quantity(tmp_path: Path) -> None:
    rows: list[list[object]] = [["Pay band", "Employee count"]]
    rows += [[f"£{b},000 - £{b + 4},999", n] for b, n in zip(range(50, 90, 5), [3, 1, 0, 2, 1, 0, 4, 2],
                                                            strict=True)]
    facts = _quantities(_facts(_csv(tmp_path / "bands.csv", rows)))
    assert len(facts) == 8 and {f.metric for f in facts} == {"employee count"}


def test_constant_link_and_filler_cells_never_name_a_row(tmp_path: Path) -> None:
    rows: list[list[object]] = [["Organisation", "URI", "Job title", "Name", "Salary", "Bonuses"]]
    posts = [("Chief Executive", "Ann Lee", 195207), ("Director of Finance", "NA", 117595),
             ("Head of Legal", "NA", 98113), ("Director of Place", "Raj Patel", 140020)]
    for title, name, pay in posts:
        rows.append(["Northshire Council", "https://example.org/id/northshire", title, name, pay, 0])
    facts = _quantities(_facts(_csv(tmp_path / "senior_salaries.csv", rows)))
    salary = {f.entity: f.value for f in facts if f.metric == "salary"}
    assert set(salary) == {"Chief Executive Ann Lee", "Director of Finance", "Head of Legal",
                           "Director of Place Raj Patel"}
    assert not any("Northshire" in (f.entity or "") or "http" in (f.entity or "") or "NA" in (f.entity or "")
                   for f in facts)
    records = [f for f in _facts(tmp_path / "senior_salaries.csv") if f.kind == FactKind.RECORD]
    assert all(not is_filler(f.value) for f in records)


def test_a_sheet_named_by_its_year_dates_its_figures_despite_a_note_above(tmp_path: Path) -> None:
    book = openpyxl.Workbook()
    book.remove(book.active)
    for year, rate in (("2020", 0.7374), ("2021", 0.7012)):
        sheet = book.create_sheet(year)
        sheet.append(["Avoided emission rates calculated in April 2024."])
        sheet.append(["Pollutant", "Onshore wind", "Utility PV"])
        sheet.append(["Avoided SO2 Rate", rate, rate / 2])
    path = tmp_path / "rates.xlsx"
    book.save(path)
    facts = _quantities(_facts(path))
    assert {(f.value, f.period) for f in facts if f.metric == "onshore wind"} == {("0.7374", "2020"),
                                                                                  ("0.7012", "2021")}


def test_a_list_of_ids_is_no_number_and_thousands_still_group() -> None:
    assert parse_figure("115,116,117,118,119,120,121") is None
    assert [f.text for f in find_figures("closed issues 115,116,117 last week")] == []
    assert parse_figure("3,688,292,000") is not None and parse_figure("123,456,789") is not None


def test_link_only_bullets_placeholders_and_comments_are_no_list_items(tmp_path: Path) -> None:
    text = (
        "# Community forum\n\nResources for the session:\n\n"
        "- **[Slides](https://example.org/slides)**\n- [Recording](https://example.org/rec), [Day 2](https://x.y/2)\n"
        "- <Insert speaker name>\n- Open data policies in three agencies\n- Q&A on licences for code\n\n"
        "<!-- Conversion notes:\n\n* Docs to Markdown version 1.0\n* Source doc: Untitled -->\n"
    )
    path = tmp_path / "forum.md"
    path.write_text(text, encoding="utf-8")
    items = {f.value for f in _facts(path) if f.kind == FactKind.LIST_ITEM}
    assert items == {"Open data policies in three agencies", "Q&A on licences for code"}
    assert placeholder_or_link("[Enter date]") and not placeholder_or_link("May 11 [Forum](f.md)")


def test_a_count_measure_is_no_money_and_a_guessed_label_naming_two_values_names_neither(
        tmp_path: Path) -> None:
    # An org chart flattened to page text: "Max salary" under two posts, with no post on its line.
    page = ("Director of Procurement\nSM3A\nMax salary\n£89,785\nChief Digital Officer\nSM3B\n"
            "Max salary\n£82,967\n\nThe lowest pay point for employees in 2020 is £17,364.\n")
    path = tmp_path / "chart.md"
    path.write_text(page, encoding="utf-8")
    facts = _quantities(_facts(path))
    assert not any(f.value in ("£89,785", "£82,967") and not f.entity for f in facts), facts
    assert not any(f.metric == "employees" for f in facts)


def test_the_labels_file_keys_are_unique_per_current_campaign() -> None:
    # Each label keys a fact by file, locator, kind, value and statement; later lines win. The last
    # campaign's lines must not contradict each other on one key.
    labels = Path(__file__).resolve().parents[2] / "bench" / "labels" / "corpus_facts.jsonl"
    seen: dict[tuple[str, ...], bool] = {}
    for line in labels.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        key = (row["sha256"], row["locator"], row["kind"], row["value"], row["statement"])
        assert row["rule"] and isinstance(row["correct"], bool)
        assert seen.setdefault(key, row["correct"]) == row["correct"], key


def test_six_tracked_items_open_or_closed_are_six_items_not_two() -> None:
    from graphforge.specs.families._common import spread
    from graphforge.specs.templates import GraphFact

    def status(n: int, word: str) -> GraphFact:
        return GraphFact(fact_id=f"fact-{n}", statement=f"Status of Task {n} is {word!r}", value=word,
                         value_num=None, unit=None, metric="status", entity=f"Task {n}", period=None,
                         span_id=f"s:{n}", locator=f"row={n + 1}", ordinal=n, span_text=f"Task {n}\t{word}",
                         path="tracker.csv", role="core", kind="status", normalized=word.lower())

    items = [status(n, "Open" if n % 2 else "Closed") for n in range(6)]
    assert [f.fact_id for f in spread(items, 6, per_file=6)] == [f.fact_id for f in items]
    # The same requirement stated twice is still one item.
    twice = [items[0], items[0].model_copy(update={"fact_id": "fact-copy", "ordinal": 9})]
    assert len(spread(twice, 6, per_file=6)) == 1


def test_six_open_or_closed_statuses_compile_to_a_status_summary_of_six_items() -> None:
    # Before spread told items apart by entity, the six statuses below collapsed to one per status word.
    from graphforge.specs.families import FamilyInput, SeedContext
    from graphforge.specs.families.status_summary import FAMILY
    from graphforge.specs.templates import GraphFact, WorkspaceGraph

    def status(n: int, word: str, path: str) -> GraphFact:
        return GraphFact(fact_id=f"fact-{n}", statement=f"Status of Task {n} is {word!r}", value=word,
                         value_num=None, unit=None, metric="status", entity=f"Task {n}", period=None,
                         span_id=f"s:{n}", locator=f"row={n + 1}", ordinal=n, span_text=f"Task {n}\t{word}",
                         path=path, role="core", kind="status", normalized=word.lower())

    facts = [status(n, "Open" if n % 2 else "Closed", f"tracker_{n // 3}.csv") for n in range(6)]
    graph = WorkspaceGraph(workspace_id="ws-status", name="Programme",
                           files=["tracker_0.csv", "tracker_1.csv"],
                           facts=facts, edges=[])
    spec = FAMILY.build(FamilyInput(graph=graph, seed=SeedContext(),
                                    rows=[{"fact_id": f.fact_id} for f in facts]))
    assert spec is not None
    items = [c for c in spec.criteria if c.check == "item"]
    assert sorted(a for c in items for a in c.anchors) == sorted(f.fact_id for f in facts)


def test_a_cell_s_own_magnitude_word_and_a_full_dollar_amount_take_no_table_scale(tmp_path: Path) -> None:
    # A table under "(in millions)" whose cells print their own magnitude or the full amount.
    path = _csv(tmp_path / "revenue_in_millions.csv", [
        ["Recipient", "Revenue 2013 (in millions)"],
        ["Treasury", "$470 million"],
        ["States", "$2,200,000,000"],
        ["Tribes", "933"],
    ])
    values = {f.entity: f.value_num for f in _quantities(_facts(path))}
    assert values.get("Treasury") == 470e6
    assert values.get("States") == 2.2e9
    assert values.get("Tribes") == 933e6  # a bare cell takes the table's scale
    own = parse_figure("$190 million")
    assert own is not None and own.scaled

"""Family citations are checked item by item, and the layout a deliverable declares is a criterion (issue 24,
items 1 and 2). Hand-built views and small generated files, no Neo4j."""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
import pytest
from openpyxl.comments import Comment
from pptx import Presentation
from pptx.util import Inches

from graphforge.judge.core import judge_attempt
from graphforge.judge.documents import read_document
from graphforge.judge.items import same_name, verify_check
from graphforge.judge.view import Anchor, FigureSource, JudgeView, WorkspaceFile
from graphforge.models.judge import JudgeArm
from graphforge.models.spec import (
    CriterionKind,
    CriterionSpec,
    DeliverableSpec,
    Polarity,
    TaskSpec,
    statement_hash,
)
from graphforge.oracle.family import FamilyPlan, write
from graphforge.settings import GraphforgeSettings
from graphforge.specs.families._common import CITES_SHARE, SpecBuilder, layout_words
from graphforge.specs.templates import GraphFact

SPEC = "cite@v1"
BOOK = "figures.xlsx"
FILES = ["reports/annual_report.pdf", "data/segments.csv", "books/ledger.xlsx", "notes/readme.md",
         "fy16/guide.md", "fy17/guide.md", "mirror/segments_copy.csv"]
REVENUE = Anchor(fact_id="f-rev", statement="Revenue 2024", value="4,210", value_num=4210.0, locator="page=3",
                 span_text="Total revenue 2024 was 4,210.", path="reports/annual_report.pdf", role="core")
SERVICES = Anchor(fact_id="f-serv", statement="Services revenue", value="1,140", value_num=1140.0,
                  locator="row=4;cols=1-3", span_text="Services\t2024\t1,140", path="data/segments.csv",
                  role="core")
CASH = Anchor(fact_id="f-cash", statement="Cash at 30 Sep", value="2,380", value_num=2380.0,
              locator="sheet=Q3!B4:D4", span_text="Cash\t30 Sep\t2,380", path="books/ledger.xlsx",
              role="core")
HEADCOUNT = Anchor(fact_id="f-head", statement="Headcount", value="312", value_num=312.0, locator="section=2",
                   span_text="Headcount at year end: 312", path="fy17/guide.md", role="core")
ANCHORS = (REVENUE, SERVICES, CASH, HEADCOUNT)
COLUMNS = ["Item", "Value", "Source file"]


def _criterion(n: int, kind: CriterionKind, check: str, target: str, anchors: list[str], weight: float = 1.0,
               **extra: object) -> CriterionSpec:
    return CriterionSpec(criterion_id=f"{SPEC}/c{n}", polarity=Polarity.POSITIVE, kind=kind, weight=weight,
                         requirement=f"criterion {n}", target_deliverable=target, anchors=anchors,
                         verification="family check", check=check, **extra)


def _view(name: str = BOOK, fmt: str = "xlsx", *, sheets: tuple[str, ...] = ("Figures",),
          sections: tuple[str, ...] = (), columns: list[str] | None = None, keys: tuple[str, ...] = (),
          agreeing: dict[str, list[FigureSource]] | None = None) -> JudgeView:
    labels = {"f-rev": "revenue for 2024", "f-serv": "Services revenue", "f-cash": "Cash at 30 Sep",
              "f-head": "headcount"}
    criteria = [_criterion(i + 1, CriterionKind.VALUE, "item", name, [a.fact_id], fact_kind="quantity",
                           label=labels[a.fact_id], expected=a.value, expected_value=a.value_num, weight=1.5)
                for i, a in enumerate(ANCHORS)]
    criteria.append(_criterion(5, CriterionKind.CITATION, "cites", name, [a.fact_id for a in ANCHORS],
                               expected="annual_report.pdf; segments.csv; ledger.xlsx; guide.md", weight=2.0))
    declared = [*sheets, *sections, *(COLUMNS if columns is None else columns), *keys]
    criteria += [_criterion(6 + i, CriterionKind.STRUCTURE, "layout", name, ["f-rev"], expected=part,
                            weight=0.5) for i, part in enumerate(declared)]
    statement = f"Write {name}."
    deliverable = DeliverableSpec(deliverable_id=f"{SPEC}/{name}", name=name, format=fmt,
                                  required_sheets=list(sheets), required_sections=list(sections),
                                  required_columns=COLUMNS if columns is None else columns,
                                  required_keys=list(keys))
    spec = TaskSpec(spec_id=SPEC, base_id="cite", version=1, workspace_id="ws", statement=statement,
                    statement_hash=statement_hash(statement), criteria=criteria, compiler="family",
                    deliverables=[deliverable])
    anchors = {c.criterion_id: [a for a in ANCHORS if a.fact_id in c.anchors] for c in criteria}
    files = [WorkspaceFile(path=p, sha256="same" if p.endswith("segments.csv") or "copy" in p else p)
             for p in FILES]
    return JudgeView(spec=spec, anchors=anchors, files=files, agreeing=agreeing or {})


ROWS = [("Revenue for 2024", "4,210", "annual_report.pdf (page 3)"),
        ("Services revenue", "1,140", "segments.csv, row 4"),
        ("Cash at 30 Sep", "2,380", "ledger.xlsx, Q3!C4"),
        ("Headcount", "312", "fy17/guide.md (section=2)")]


def _book(path: Path, rows: list[tuple[str, str, str]] = ROWS, header: list[str] = COLUMNS,
          sheet: str = "Figures") -> Path:
    book = openpyxl.Workbook()
    ws = book.worksheets[0]
    ws.title = sheet
    ws.append(header)
    for row in rows:
        ws.append(list(row))
    book.save(path)
    return path


def _score(view: JudgeView, path: Path, n: int, arm: JudgeArm = JudgeArm.ANCHORED) -> tuple[float, str]:
    criterion = next(c for c in view.spec.criteria if c.criterion_id == f"{SPEC}/c{n}")
    d = view.spec.deliverables[0]
    score, evidence, _ = verify_check(criterion, arm, view, read_document(path, d.format))
    return score, evidence


def _with(source: str, replaced: str, tmp_path: Path) -> Path:
    rows = [(a, b, replaced if c == source else c) for a, b, c in ROWS]
    return _book(tmp_path / BOOK, rows)


def test_each_item_citing_its_own_file_and_place_passes(tmp_path: Path) -> None:
    view = _view()
    path = _book(tmp_path / BOOK)
    assert _score(view, path, 5) == (1.0, "4 of 4 items cite a file that holds them")
    judgment, _ = judge_attempt(view, {BOOK: path}, JudgeArm.ANCHORED, trajectory_id="t")
    assert judgment.q == pytest.approx(1.0), judgment.reason


@pytest.mark.parametrize(
    ("source", "replaced", "why"),
    [
        ("annual_report.pdf (page 3)", "annual_report_final_v2.pdf (page 3)", "not a file of the workspace"),
        ("annual_report.pdf (page 3)", "readme.md", "none of which states the item"),
        ("annual_report.pdf (page 3)", "annual_report.pdf, p. 7", "but the item is at page=3"),
        ("segments.csv, row 4", "segments.csv, row 9", "but the item is at row=4"),
        ("ledger.xlsx, Q3!C4", "ledger.xlsx, Q3!F9", "but the item is at sheet=Q3!B4:D4"),
        ("segments.csv, row 4", "", "names no source file"),
        ("annual_report.pdf (page 3)", "annual_report.pdf; readme.md; ledger.xlsx; segments.csv",
         "files at once"),
    ],
    ids=["invented", "wrong-real-file", "wrong-page", "wrong-row", "wrong-cell", "no-source", "wholesale"],
)
def test_a_wrong_citation_fails_its_item_only(tmp_path: Path, source: str, replaced: str, why: str) -> None:
    score, evidence = _score(_view(), _with(source, replaced, tmp_path), 5)
    assert score == 0.75 and why in evidence, evidence


def test_an_item_stated_wrong_has_no_citation_to_check(tmp_path: Path) -> None:
    rows = [("Revenue for 2024", "4,901", "annual_report.pdf (page 3)"), *ROWS[1:]]
    score, evidence = _score(_view(), _book(tmp_path / BOOK, rows), 5)
    assert score == 0.75 and "annual_report.pdf: the item is not stated" in evidence, evidence


def test_files_named_elsewhere_do_not_cite_the_items(tmp_path: Path) -> None:
    rows = [(a, b, "") for a, b, _ in ROWS]
    path = _book(tmp_path / BOOK, rows)
    book = openpyxl.load_workbook(path)
    book.create_sheet("Sources").append([c for _, _, c in ROWS])
    book.save(path)
    assert _score(_view(), path, 5)[0] == 0.0


def test_invented_sources_for_every_item_are_not_admitted(tmp_path: Path) -> None:
    rows = [(a, b, c.replace(".pdf", "_v2.pdf").replace(".csv", "_v2.csv").replace(".xlsx", "_v2.xlsx")
             .replace(".md", "_v2.md")) for a, b, c in ROWS]
    view = _view()
    path = _book(tmp_path / BOOK, rows)
    assert _score(view, path, 5)[0] == 0.0
    judgment, _ = judge_attempt(view, {BOOK: path}, JudgeArm.ANCHORED, trajectory_id="t")
    assert judgment.q <= GraphforgeSettings().admit_q_threshold, judgment.reason


def test_an_agreeing_file_an_identical_copy_or_a_shared_base_name_holds_the_item(tmp_path: Path) -> None:
    agreeing = {"f-rev": [FigureSource(path="notes/readme.md", locator="section=1")]}
    path = _with("segments.csv, row 4", "segments_copy.csv, row 4", tmp_path)
    book = openpyxl.load_workbook(path)
    book["Figures"]["C2"] = "readme.md"
    book["Figures"]["C5"] = "guide.md (section=2)"  # fy16/guide.md or fy17/guide.md: one of them holds it
    book.save(path)
    assert _score(_view(agreeing=agreeing), path, 5)[0] == 1.0
    assert _score(_view(), path, 5)[0] == 0.75  # without the compare edge, readme.md does not hold revenue


def test_a_cell_comment_cites_its_row(tmp_path: Path) -> None:
    path = _with("segments.csv, row 4", "", tmp_path)
    book = openpyxl.load_workbook(path)
    book["Figures"]["B3"].comment = Comment("From segments.csv, row 4", "analyst")
    book.save(path)
    assert _score(_view(), path, 5)[0] == 1.0


def _memo(tmp_path: Path, text: str) -> tuple[JudgeView, Path]:
    path = tmp_path / "memo.md"
    path.write_text(text, encoding="utf-8")
    return _view("memo.md", "md", sheets=(), sections=("Figures",), columns=[]), path


def test_a_report_cites_on_the_line_below_or_in_a_footnote(tmp_path: Path) -> None:
    view, path = _memo(tmp_path, (
        "## Figures\n\n"
        "- Revenue for 2024: 4,210 [1]\n"
        "- Services revenue: 1,140\n  Source: segments.csv, row 4\n"
        "- Cash at 30 Sep: 2,380 (ledger.xlsx, Q3!B4)\n"
        "- Headcount: 312[^2]\n\n"
        "## Notes\n\n[1] reports/annual_report.pdf, page 3\n\n[^2]: fy17/guide.md\n"))
    assert _score(view, path, 5)[0] == 1.0
    view, path = _memo(tmp_path, (
        "## Figures\n\n- Revenue for 2024: 4,210\n- Services revenue: 1,140\n- Cash at 30 Sep: 2,380\n"
        "- Headcount: 312\n\n## Sources\n\nannual_report.pdf, segments.csv, ledger.xlsx, fy17/guide.md\n"))
    assert _score(view, path, 5)[0] == 0.0  # a list of files is no citation of any item


def test_speaker_notes_cite_the_figures_of_their_slide(tmp_path: Path) -> None:
    deck = Presentation()
    for (label, value, source) in ROWS:
        slide = deck.slides.add_slide(deck.slide_layouts[5])
        slide.shapes.title.text = label
        slide.shapes.add_textbox(Inches(1), Inches(2), Inches(8), Inches(2)).text_frame.text = (
            f"{label}: {value}")
        slide.notes_slide.notes_text_frame.text = f"Source: {source}"
    deck.save(str(tmp_path / "deck.pptx"))
    view = _view("deck.pptx", "pptx", sheets=(), columns=[])
    assert _score(view, tmp_path / "deck.pptx", 5)[0] == 1.0


def test_the_unanchored_arm_fails_an_invented_file(tmp_path: Path) -> None:
    view = _view()
    assert _score(view, _book(tmp_path / BOOK), 5, JudgeArm.UNANCHORED)[0] == pytest.approx(4 / 4)
    invented = _with("segments.csv, row 4", "segments_v2.csv", tmp_path)
    assert _score(view, invented, 5, JudgeArm.UNANCHORED)[0] == 0.0


# ---- the requested layout -------------------------------------------------------------------------------

@pytest.mark.parametrize("a, b", [("Source file", "source_file"), ("Source file", "SOURCE  FILE"),
                                  ("Source file", "SourceFiles"), ("first_date", "First date"),
                                  ("Applies to", "applies-to")])
def test_names_match_whatever_their_case_spacing_or_plural(a: str, b: str) -> None:
    assert same_name(a, b)


def test_names_that_differ_in_words_do_not_match() -> None:
    assert not same_name("Source file", "Source") and not same_name("Status", "Evidence")


def test_every_declared_column_is_checked_tolerantly_in_any_order(tmp_path: Path) -> None:
    view = _view()
    layout = {c.expected: c.criterion_id.rsplit("c", 1)[-1] for c in view.spec.criteria
              if c.check == "layout"}
    path = _book(tmp_path / BOOK, [(c, b, a) for a, b, c in ROWS], header=["SOURCE_FILE", "value", "item"],
                 sheet="figures")
    assert all(_score(view, path, int(n))[0] == 1.0 for n in layout.values())
    generic = _book(tmp_path / "generic.xlsx", header=["Item", "Value", "Source"])
    assert _score(view, generic, int(layout["Source file"])) == (0.0, "column 'Source file' missing")
    assert _score(view, generic, int(layout["Item"]))[0] == 1.0


def test_a_title_row_above_the_header_is_allowed(tmp_path: Path) -> None:
    view = _view()
    path = tmp_path / BOOK
    book = openpyxl.Workbook()
    ws = book.worksheets[0]
    ws.title = "Figures"
    ws.append(["Key figures, FY2024"])
    ws.append(COLUMNS)
    book.save(path)
    assert _score(view, path, 8)[0] == 1.0  # "Source file"


def test_json_record_keys_are_checked(tmp_path: Path) -> None:
    view = _view("records.json", "json", sheets=(), sections=("documents",), columns=[],
                 keys=("file", "title", "first_date"))
    keys = {c.expected: int(c.criterion_id.rsplit("c", 1)[-1]) for c in view.spec.criteria
            if c.check == "layout"}
    good = tmp_path / "records.json"
    good.write_text(json.dumps({"documents": [{"File": "a.pdf", "Title": "T", "First date": "2024-01-02"}]}))
    assert all(_score(view, good, n)[0] == 1.0 for n in keys.values())
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"documents": [{"item": "T", "value": "2024-01-02", "source": "a.pdf"}]}))
    assert [_score(view, wrong, keys[k])[0] for k in ("documents", "file", "title", "first_date")] == [
        1.0, 0.0, 0.0, 0.0]


# ---- the compiler and the oracle agree with the judge ----------------------------------------------------

def _fact(n: int, path: str) -> GraphFact:
    text = f"Requirement number {n} applies to all staff"
    return GraphFact(fact_id=f"f{n}", kind="requirement", value=text, normalized=text.lower(), path=path,
                     ordinal=n,
                     statement=f"requirement {n}", role="core", section=f"Section {n}", value_num=None,
                     unit=None, metric=None, entity=None, period=None, span_id=f"s{n}", locator=f"page={n}",
                     span_text=text)


def test_the_compiler_derives_layout_criteria_and_weighs_citations_against_admission() -> None:
    b = SpecBuilder("ws", "toy", None, 1)
    book = b.deliverable("checklist.xlsx", "xlsx", "checklist", sheets=("Checklist",),
                         columns=("Requirement", "Source file", "Status"))
    facts = [_fact(n, "policy.pdf") for n in range(6)]
    for f in facts:
        b.item(f, book, "lists it", weight=1.5)
    cites = b.cites(facts, book)
    spec = b.spec(f"Please send {layout_words(book)}.", "")
    assert "with a sheet named Checklist: the columns Requirement, Source file and Status" in spec.statement
    layout = [c.expected for c in spec.criteria if c.check == "layout"]
    assert layout == ["Checklist", "Requirement", "Source file", "Status"]
    positive = sum(c.weight for c in spec.positive)
    assert cites.weight == pytest.approx(CITES_SHARE * 9, abs=1e-3)
    threshold = GraphforgeSettings().admit_q_threshold
    assert cites.weight / positive > 1 - threshold  # every item cited wrong: not admitted
    assert sum(c.weight for c in spec.criteria if c.check == "layout") / positive > 1 - threshold
    assert (1.5 + cites.weight / 6) / positive > 1 - threshold  # one wrong item of six (and so its citation)


def test_the_oracle_writes_exactly_the_declared_layout(tmp_path: Path) -> None:
    view = _view(columns=["Source file", "Item", "Value", "Status"])
    write(tmp_path / BOOK, view, view.spec.deliverables[0], FamilyPlan())
    ws = openpyxl.load_workbook(tmp_path / BOOK)["Figures"]
    assert [c.value for c in ws[1]] == ["Source file", "Item", "Value", "Status"]
    judgment, _ = judge_attempt(view, {BOOK: tmp_path / BOOK}, JudgeArm.ANCHORED, trajectory_id="t")
    assert judgment.q == pytest.approx(1.0), judgment.reason

    view = _view("records.json", "json", sheets=(), sections=("documents",), columns=[],
                 keys=("file", "title", "first_date"))
    write(tmp_path / "records.json", view, view.spec.deliverables[0], FamilyPlan())
    data = json.loads((tmp_path / "records.json").read_text())
    assert list(data) == ["documents"] and all(list(r) == ["file", "title", "first_date"]
                                               for r in data["documents"])

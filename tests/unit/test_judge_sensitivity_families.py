"""Judge sensitivity on task-family specs, whose criteria are found wherever the deliverable puts them.

Family verifiers report the lines or parts their verdict rests on, so the study can change the stated figure,
corrupt its line, delete the slide or sheet it sits on and break its citation, and tell target criteria from
the rest."""

from __future__ import annotations

from pathlib import Path

import openpyxl
from pptx import Presentation
from pptx.util import Inches

from graphforge.judge.perturb import PerturbationKind
from graphforge.judge.sensitivity import SensitivityCase, cases_for
from graphforge.judge.view import Anchor, JudgeView, WorkspaceFile
from graphforge.llm import OpenAICompatibleChatModel
from graphforge.models.judge import JudgeArm
from graphforge.models.spec import (
    CriterionKind,
    CriterionSpec,
    DeliverableSpec,
    Polarity,
    TaskSpec,
    statement_hash,
)
from tests.support.llm_server import ScriptedLLMServer, json_answer

SPEC = "brief@v1"
DECK = "briefing.pptx"
BOOK = "figures.xlsx"
PROFIT = Anchor(fact_id="f-profit", statement="operating profit 2024-Q2", value="2,355", value_num=2355.0,
                locator="slide=2", span_text="Operating profit 2024-Q2 2,355", path="board/update_q2.pptx",
                role="core")
SERVICES = Anchor(fact_id="f-services", statement="Services revenue 2024-Q2", value="1,140",
                  value_num=1140.0, locator="row=4", span_text="Services\t2024-Q2\t1,140",
                  path="data/segments.csv", role="core")


def _criterion(n: int, kind: CriterionKind, check: str, deliverable: str, anchors: list[str], **extra: object
               ) -> CriterionSpec:
    return CriterionSpec(criterion_id=f"{SPEC}/c{n}", polarity=Polarity.POSITIVE, kind=kind, weight=1.0,
                         requirement=f"criterion {n}", target_deliverable=deliverable, anchors=anchors,
                         verification="family check", check=check, **extra)


def _view(deliverable: str, fmt: str, parts: list[str]) -> JudgeView:
    criteria = [
        _criterion(1, CriterionKind.VALUE, "item", deliverable, ["f-profit"], fact_kind="quantity",
                   label="operating profit", expected="2,355", expected_value=2355.0),
        _criterion(2, CriterionKind.VALUE, "item", deliverable, ["f-services"], fact_kind="quantity",
                   label="Services", expected="1,140", expected_value=1140.0),
        _criterion(3, CriterionKind.CITATION, "cites", deliverable, ["f-profit", "f-services"],
                   expected="update_q2.pptx; segments.csv"),
        _criterion(4, CriterionKind.STRUCTURE, "layout", deliverable, [], expected=parts[0]),
        _criterion(5, CriterionKind.STRUCTURE, "layout", deliverable, [], expected=parts[1]),
    ]
    statement = f"Write {deliverable}."
    spec = TaskSpec(spec_id=SPEC, base_id="brief", version=1, workspace_id="ws", statement=statement,
                    statement_hash=statement_hash(statement), criteria=criteria, compiler="family",
                    deliverables=[DeliverableSpec(deliverable_id=f"{SPEC}/{deliverable}", name=deliverable,
                                                  format=fmt)])
    anchors = {c.criterion_id: [a for a in (PROFIT, SERVICES) if a.fact_id in c.anchors] for c in criteria}
    files = [WorkspaceFile(path=p) for p in ("board/update_q2.pptx", "data/segments.csv", "notes/readme.md")]
    return JudgeView(spec=spec, anchors=anchors, files=files)


def _deck(path: Path) -> Path:
    deck = Presentation()
    cover = deck.slides.add_slide(deck.slide_layouts[0])
    cover.shapes.title.text = "H1 2024 briefing"
    figures = ["Operating profit for 2024-Q2: 2,355 (source: update_q2.pptx, slide=2)",
               "Services revenue for 2024-Q2: 1,140 (source: segments.csv, row=4)"]
    sources = ["update_q2.pptx (slide=2)", "segments.csv (row=4)"]
    for title, lines in (("Key figures", figures), ("Sources", sources)):
        slide = deck.slides.add_slide(deck.slide_layouts[5])  # title only
        slide.shapes.title.text = title
        frame = slide.shapes.add_textbox(Inches(1), Inches(2), Inches(8), Inches(3)).text_frame
        frame.text = lines[0]
        for line in lines[1:]:
            frame.add_paragraph().text = line
    deck.save(str(path))
    return path


def _deck_text(path: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for slide in Presentation(str(path)).slides:
        title = slide.shapes.title.text_frame.text if slide.shapes.title is not None else ""
        out[title] = "\n".join(s.text_frame.text for s in slide.shapes
                               if s.has_text_frame and s is not slide.shapes.title)
    return out


def _by(cases: list[SensitivityCase], kind: PerturbationKind, n: int) -> SensitivityCase:
    return next(c for c in cases if c.kind is kind and c.criterion_id == f"{SPEC}/c{n}")


def test_every_perturbation_applies_to_a_deck_and_moves_only_its_target(tmp_path: Path) -> None:
    view = _view(DECK, "pptx", ["Key figures", "Sources"])
    cases, unscored = cases_for(view, {DECK: _deck(tmp_path / DECK)}, JudgeArm.ANCHORED, tmp_path / "work",
                                trajectory_id="t1")
    assert not unscored
    # Every kind but the superseded source, which needs a stale criterion (this spec has none).
    assert {c.kind for c in cases} == set(PerturbationKind) - {PerturbationKind.SUPERSEDED_SOURCE}
    for case in cases:
        assert case.target_before == (0.0 if case.negative else 1.0), case
        assert case.target_delta <= -0.5, case  # a negative target that fires moves the credit by -1
        assert all(d == 0.0 for d in case.non_target_deltas), case

    # The stated figure changes, not the "slide=2" locator after it; the other figure is untouched.
    changed = _by(cases, PerturbationKind.CHANGE_NUMBER, 1)
    assert changed.target_after == 0.0
    text = _deck_text(tmp_path / "work" / "change_number" / "c1" / DECK)["Key figures"]
    assert "2,355" not in text and "slide=2" in text and "1,140" in text
    # The citations on the figure's line are another criterion's business only when they share the line; the
    # standing negatives on wrong figures and their sources restate the defect.
    assert changed.co_targeted == [f"{SPEC}/c3", f"{SPEC}/s1-sources", f"{SPEC}/s1-misstated"]
    assert _by(cases, PerturbationKind.CORRUPT_ROW, 2).target_after == 0.0

    # Deleting the slide the figure sits on removes that slide only, and everything on it is co-targeted.
    deleted = _by(cases, PerturbationKind.DELETE_SHEET, 1)
    slides = _deck_text(tmp_path / "work" / "delete_sheet" / "c1" / DECK)
    assert sorted(slides) == ["H1 2024 briefing", "Sources"]
    assert deleted.target_after == 0.0 and {f"{SPEC}/c2", f"{SPEC}/c4"} <= set(deleted.co_targeted)
    assert _by(cases, PerturbationKind.DELETE_SHEET, 5).target_after == 0.0  # the "Sources" slide

    # Breaking the citations of the criterion's items (each file they come from) fails every item's citation
    # (the paper's judge barely moved: -0.013).
    broken = _by(cases, PerturbationKind.BREAK_CITATION, 3)
    text = _deck_text(tmp_path / "work" / "break_citation" / "c3" / DECK)["Key figures"]
    assert "update_q2_final_v2.pptx" in text and "segments_final_v2.csv" in text
    assert broken.target_before == 1.0 and broken.target_after == 0.0
    # Citing another real file of the workspace instead fails them just the same.
    misdirected = _by(cases, PerturbationKind.WRONG_CITATION, 3)
    assert "readme.md" in _deck_text(tmp_path / "work" / "wrong_citation" / "c3" / DECK)["Key figures"]
    assert misdirected.target_after == 0.0
    # The slide the task asks for, renamed, is a layout criterion lost (and the standing "parts" negative).
    renamed = _by(cases, PerturbationKind.WRONG_LAYOUT, 4)
    assert renamed.target_after == 0.0 and renamed.co_targeted == [f"{SPEC}/s1-parts"]
    # A note to the grader fires the standing grader criterion: -1, however right the rest.
    for kind in (PerturbationKind.GRADER_NOTE, PerturbationKind.GRADER_NOTE_PARAPHRASED):
        note = next(c for c in cases if c.kind is kind)
        assert note.criterion_id == f"{SPEC}/s1-grader" and note.target_delta == -1.0


def test_a_workbook_row_with_a_label_gets_its_number_changed_and_its_sheet_deleted(tmp_path: Path) -> None:
    view = _view(BOOK, "xlsx", ["Figures", "Sources"])
    wb = openpyxl.Workbook()
    ws = wb.worksheets[0]
    ws.title = "Figures"
    ws.append(["Item", "Period", "Value", "Source"])
    ws.append(["Operating profit", "2024-Q2", 2355, "update_q2.pptx"])
    ws.append(["Services revenue", "2024-Q2", 1140, "segments.csv"])
    wb.create_sheet("Sources").append(["update_q2.pptx", "segments.csv"])
    wb.save(tmp_path / BOOK)

    cases, unscored = cases_for(view, {BOOK: tmp_path / BOOK}, JudgeArm.ANCHORED, tmp_path / "work",
                                trajectory_id="t1")
    assert not unscored
    changed = _by(cases, PerturbationKind.CHANGE_NUMBER, 1)
    assert changed.target_before == 1.0 and changed.target_after == 0.0
    book = openpyxl.load_workbook(tmp_path / "work" / "change_number" / "c1" / BOOK)
    assert book["Figures"]["A2"].value == "Operating profit" and book["Figures"]["C2"].value != 2355
    assert book["Figures"]["C3"].value == 1140
    deleted = _by(cases, PerturbationKind.DELETE_SHEET, 5)
    assert deleted.target_after == 0.0
    assert openpyxl.load_workbook(tmp_path / "work" / "delete_sheet" / "c5" / BOOK).sheetnames == ["Figures"]


def test_one_deleted_slide_is_judged_once_for_every_criterion_on_it(
        tmp_path: Path, scripted_llm: ScriptedLLMServer,
        scripted_chat_model: OpenAICompatibleChatModel) -> None:
    view = _view(DECK, "pptx", ["Key figures", "Sources"])
    scripted_llm.responder = lambda r: json_answer({"score": 1, "evidence": "ok"})  # type: ignore[assignment]
    cases, unscored = cases_for(view, {DECK: _deck(tmp_path / DECK)}, JudgeArm.UNANCHORED, tmp_path / "work",
                                trajectory_id="t1", llm=scripted_chat_model,
                                kinds=[PerturbationKind.DELETE_SHEET])
    assert not unscored
    # c1, c2 and c4 rest on the "Key figures" slide, c5 on "Sources" (c3's citations sit on both).
    assert sorted(c.criterion_id[-2:] for c in cases) == ["c1", "c2", "c4", "c5"]
    # The baseline and two distinct copies, each judged once per criterion: 3 x 5 calls, not 5 x 5.
    assert len(scripted_llm.chat_requests) == 3 * len(view.spec.criteria)


def test_a_sample_keeps_the_first_cases_of_each_kind(tmp_path: Path) -> None:
    view = _view(DECK, "pptx", ["Key figures", "Sources"])
    cases, _ = cases_for(view, {DECK: _deck(tmp_path / DECK)}, JudgeArm.ANCHORED, tmp_path / "work",
                         trajectory_id="t1", max_per_kind=1)
    assert sorted((c.kind.value, c.criterion_id.rsplit("/", 1)[-1]) for c in cases) == [
        ("break_citation", "c3"), ("change_number", "c1"), ("corrupt_row", "c1"), ("delete_sheet", "c1"),
        ("grader_note", "s1-grader"), ("grader_note_paraphrased", "s1-grader"), ("wrong_citation", "c3"),
        ("wrong_layout", "c4")]

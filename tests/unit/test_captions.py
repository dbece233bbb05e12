"""Display captions for Neo4j Browser: short, and distinct where the properties they come from start alike."""

from __future__ import annotations

from graphforge.graphdb.captions import NAME_CHARS, caption, first_words, locator_caption, middle


def test_names_are_shortened_from_the_middle_and_keep_their_extension() -> None:
    a = middle("Awesome_Hospital_Price_Transparency_Guide_v2.pdf")
    b = middle("Awesome_Hospital_Price_Transparency_Data_Dictionary.xlsx")
    assert len(a) == NAME_CHARS and a.endswith("v2.pdf") and a.startswith("Awesome") and "…" in a
    assert a != b and b.endswith(".xlsx")
    assert middle("short.csv") == "short.csv"


def test_first_words_cut_at_a_word() -> None:
    assert first_words("Analyze sales data by region and channel", 24) == "Analyze sales data by…"
    assert first_words("Short one") == "Short one"


def test_span_locators_keep_their_specific_end() -> None:
    assert locator_caption("sheet=Q1!A3:D3") == "Q1!A3:D3"
    assert locator_caption("row=2") == "row 2"
    assert locator_caption("page=3;line=4") == "page 3; line 4"
    deep = locator_caption("element=/html/body/div[3]/section[2]/table[1]/tr[14]/td[2]")
    assert deep.endswith("tr[14]/td[2]") and len(deep) <= NAME_CHARS and not deep.startswith("element")


def test_each_node_of_an_anchor_chain_reads_apart() -> None:
    spec = caption(["TaskSpec"], {"family": "reconciliation", "version": 2, "spec_id": "ws-x-123@v2"})
    crit = caption(["Criterion"], {"ordinal": 3, "kind": "value", "check": "item",
                                   "requirement": "brightwater_review.xlsx gives revenue for 2024-Q2",
                                   "target_deliverable": "brightwater_review.xlsx"})
    neg = caption(["Criterion"], {"ordinal": 7, "kind": "value", "check": "stale", "polarity": "negative",
                                  "requirement": "brightwater_review.xlsx states the draft revenue",
                                  "target_deliverable": "brightwater_review.xlsx"})
    deliverable = caption(["Deliverable"], {"name": "brightwater_review.xlsx"})
    fact = caption(["Fact"], {"metric": "revenue", "period": "2024-Q2", "value": "EUR 8,925 thousand",
                              "statement": "Revenue for 2024-Q2 is EUR 8,925 thousand (x.pdf, page=1)"})
    span = caption(["Span"], {"locator": "page=1", "text": "Brightwater Instruments Ltd - Quarterly Report"})
    file = caption(["File"], {"name": "brightwater_ledger_2024.xlsx"},
                   path="finance/brightwater_ledger_2024.xlsx")
    shown = [spec, crit, neg, deliverable, fact, span, file]
    assert spec == "reconciliation v2"
    assert crit.startswith("c3 item: gives revenue") and neg.startswith("c7 not stale:")
    assert deliverable.startswith("out: ") and fact.startswith("revenue 2024-Q2: EUR")
    assert span == "page 1 · Brightwater…" and file == "brightwater… er_2024.xlsx"
    assert len(set(shown)) == len(shown) and all(len(s) <= 36 for s in shown), shown


def test_a_shared_file_name_gets_its_folder() -> None:
    shared = {"README.md"}
    a = caption(["File"], {"name": "README.md"}, "examples/v2.0/README.md", shared)
    b = caption(["File"], {"name": "README.md"}, "examples/v3.0_2026-04/README.md", shared)
    assert a == "v2.0/ README.md" and b == "v3.0_2026-04/ README.md"
    name = "V3.0.0_Tall_CSV_Format_Example.csv"
    tall = caption(["File"], {"name": name}, f"examples/v3.0_2026-04/{name}", {name})
    assert tall.startswith("v3.0_2026-04/ V3.0.0_Tall") and tall.endswith("Example.csv")
    assert caption(["File"], {"name": "README.md"}, "README.md", shared) == "README.md"


def test_other_labels_say_what_they_are() -> None:
    assert caption(["Judgment"], {"q": 0.9312, "arm": "anchored"}) == "Q 0.93 anchored"
    assert caption(["Trajectory"], {"status": "admitted", "scaffold": "oracle", "model": "oracle (x)"}) == (
        "admitted · oracle")
    rating = caption(["Rating"], {"player": "anchor-model (codex)", "elo": 1679.8})
    assert rating == "Elo 1680 · anchor-model…"
    assert caption(["Seed"], {"pattern": "planning and scheduling", "input_family": "spreadsheet"}).endswith(
        "spreadsheet")
    assert caption(["Review"], {"verdict": "reject", "reviewer": "ann@example.org"}) == "reject by ann"
    assert caption(["Occupation"], {"title": "Treasurers and Controllers"}) == "Treasurers and Controllers"
    assert caption(["Mystery"], {}) == "Mystery"

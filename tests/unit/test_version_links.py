"""Which files named alike are versions of one document: supersedes edges need more than a shared name.

Each case writes small Markdown files, parses them with the real parser, extracts facts with the rule-based
extractor and links them with ``document_edges``, as ``evidence build`` does."""

from __future__ import annotations

from pathlib import Path

from graphforge.evidence.base import WorkspaceSpan
from graphforge.evidence.doc_links import document_edges, version_rank
from graphforge.evidence.rule_based import RuleBasedExtractor
from graphforge.models.evidence import DependencyKind, DependsOnRow, FactRow
from graphforge.parsers import parse_file
from graphforge.parsers.base import ParseLimits


def _linked(root: Path, files: dict[str, str]) -> tuple[list[FactRow], list[DependsOnRow], dict[str, str]]:
    """Write the files, parse them with the real parser, extract and link their facts as ``evidence build``
    does: (facts, edges, fact id -> path)."""
    spans: list[WorkspaceSpan] = []
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        parsed = parse_file(path, ParseLimits())
        assert parsed.valid, parsed.invalid_reason
        spans += [
            WorkspaceSpan(span_id=f"{parsed.sha256}:{s.locator}", file_sha256=parsed.sha256,
                          locator=s.locator, kind="x", ordinal=i, text=s.text, path=rel)
            for i, s in enumerate(parsed.spans)
        ]
    facts = RuleBasedExtractor().extract(spans).facts
    path_of = {s.span_id: s.path for s in spans}
    return facts, document_edges(facts, spans), {f.fact_id: path_of[f.span_id] for f in facts}


def _edges(root: Path, files: dict[str, str], kind: DependencyKind) -> set[tuple[str, str]]:
    """(source, target) path pairs of the edges of ``kind`` over the given files."""
    _, edges, by_id = _linked(root, files)
    return {(by_id[e.src_fact_id], by_id[e.dst_fact_id]) for e in edges if e.kind is kind}


def _supersedes(root: Path, files: dict[str, str]) -> set[tuple[str, str]]:
    """(newer, older) path pairs of the supersedes edges over the given files."""
    return _edges(root, files, DependencyKind.SUPERSEDES)


def _forum(day: str, topic: str, speakers: list[str]) -> str:
    lines = [f"# Community Forum, {day}", "", f"Topic: {topic}.", "", "## Speakers", ""]
    lines += [f"- {s} presented the work of the group on {topic.lower()}." for s in speakers]
    return "\n".join(lines) + "\n"


PAGE = "\n".join(
    ["# Funding opportunities", ""]
    + [f"- Programme {n}: proposals are due by the stated closing date of call {n}." for n in range(1, 11)]
) + "\n"


def test_records_of_separate_meetings_are_a_series_not_versions(tmp_path: Path) -> None:
    pairs = _supersedes(tmp_path, {
        "meetings/20230914_community_forum.md": _forum("September 14, 2023", "Open data in hydrology",
                                                       ["Ana Ruiz", "Tom Berg", "Li Wei"]),
        "meetings/20231109_community_forum.md": _forum("November 9, 2023", "Software citation",
                                                       ["Maya Holt", "Sam Okafor", "Ines Duarte"]),
    })
    assert pairs == set()


def test_two_dated_snapshots_of_one_page_are_versions_newer_over_older(tmp_path: Path) -> None:
    later = PAGE.replace("call 10.", "call 10.\n- Programme 11: a new call opens in the spring.")
    pairs = _supersedes(tmp_path, {"funding/opportunities_2023-04-28.md": PAGE,
                                   "funding/opportunities_2023-12-11.md": later})
    assert pairs == {("funding/opportunities_2023-12-11.md", "funding/opportunities_2023-04-28.md")}


def test_a_folder_readme_is_no_version_of_a_release_readme(tmp_path: Path) -> None:
    pairs = _supersedes(tmp_path, {
        "README.md": "# About this folder\n\nThe releases below hold emission rates by region and year.\n",
        "v2.3-2019/README.md": "# Release 2.3\n\nThis release adds the 2019 rates for every region.\n",
        "v4.3-2024/README.md": "# Release 4.3\n\nThis release adds the 2024 rates and a new region.\n",
    })
    # The two releases' READMEs carry version marks: the later release supersedes the earlier one.
    assert pairs == {("v4.3-2024/README.md", "v2.3-2019/README.md")}


def test_marked_versions_link_even_when_restructured(tmp_path: Path) -> None:
    pairs = _supersedes(tmp_path, {
        "plan_draft.md": "# Work plan\n\n- Phase one covers discovery and research with users.\n",
        "plan_final.md": "# Work plan\n\nThe work runs in three phases, each reviewed by the owner.\n",
    })
    assert pairs == {("plan_final.md", "plan_draft.md")}


def test_release_numbers_order_as_numbers() -> None:
    assert version_rank("spec/v10/guide.md") > version_rank("spec/v9/guide.md")
    assert version_rank("v4.4-provisional-2025/rates.xlsx") > version_rank("v4.3-2024/rates.xlsx")


def test_a_charter_made_from_a_template_does_not_supersede_it(tmp_path: Path) -> None:
    body = "\n".join(f"- Section {n}: the project states its {n}th commitment here." for n in range(1, 9))
    filled = body.replace("commitment", "promise", 2)
    pairs = _supersedes(tmp_path, {
        "charter_template_v1.md": f"# Project charter of the Data Commons\n\n{body}\n",
        "charter_v2.md": f"# Project charter of the Data Commons\n\n{filled}\n",
    })
    assert pairs == set()


def _references(root: Path, files: dict[str, str]) -> set[tuple[str, str]]:
    return _edges(root, files, DependencyKind.REFERENCE)


def test_references_need_a_name_one_file_holds_and_no_address_elsewhere(tmp_path: Path) -> None:
    policy = (
        "# Pay policy statement 2021\n\nThe Council must publish its pay multiple each year; the figures are "
        "in pay_multiple.csv.\n\nMore guidance is in the [readme](https://example.org/guide/readme.html) and "
        "in [the area notes](./docs/area1/readme.md).\n"
    )
    pairs = _references(tmp_path, {
        "policy/statement.md": policy,
        "policy/pay_multiple.csv": "year,ratio\n2021,6.9\n2022,7.1\n",
        "policy/readme.md": "# Policy folder\n\nStatements and their data.\n",
        "salaries/readme.md": "# Salaries folder\n\nSenior salaries by year.\n",
    })
    assert ("policy/statement.md", "policy/pay_multiple.csv") in pairs
    # "readme" is the name of two files, and the links lead to a web page and to another folder's file
    assert not any(cited.endswith("readme.md") for _, cited in pairs)


def test_a_relative_link_to_a_folder_file_is_a_reference(tmp_path: Path) -> None:
    pairs = _references(tmp_path, {
        "programme/overview.md": "# Programme overview\n\nSee the [FAQ](../funding/proposal_faq.md) first.\n",
        "funding/proposal_faq.md": "# Proposal questions\n\nWho may apply: any research institution.\n",
    })
    assert pairs == {("programme/overview.md", "funding/proposal_faq.md")}


OLD_RULE = ("- Proposer must have a research proposal selected for funding through any previous solicitation "
            "with at least 15 months remaining in its period of performance.")
NEW_RULE = ("- Proposer must have an existing research proposal selected for funding with at least 15 months "
            "remaining in its period of performance at the time of submission.")
KEPT = "- Events must be openly available and allow for inclusive participation."
MOVED = "- Potential proposers must confirm availability of funds before preparing a proposal."
MOVED_AGAIN = "- Before preparing a proposal, potential proposers must confirm availability of funds."


def test_a_later_version_that_rewords_a_requirement_is_linked_to_the_old_wording(tmp_path: Path) -> None:
    older = PAGE + "\n## Rules\n\n" + "\n".join([OLD_RULE, KEPT, MOVED]) + "\n"
    newer = PAGE + "\n## Rules\n\n" + "\n".join([NEW_RULE, KEPT, MOVED_AGAIN]) + "\n"
    files = {"funding/opportunities_2023-04-28.md": older, "funding/opportunities_2023-12-11.md": newer}
    facts, edges, _ = _linked(tmp_path, files)
    value = {f.fact_id: f.value for f in facts}
    revised = [e for e in edges if e.kind is DependencyKind.RECONCILE and "revises" in (e.note or "")]
    pairs = {(value[e.src_fact_id].lstrip("- "), value[e.dst_fact_id].lstrip("- ")) for e in revised}
    # the reworded rule, newer over older; the same words in another order are no revision
    assert (NEW_RULE[2:], OLD_RULE[2:]) in pairs
    assert not any("confirm" in a for a, _ in pairs)
    assert not any("openly" in a for a, _ in pairs)

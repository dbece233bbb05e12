"""Which files named alike are versions of one document: supersedes edges need more than a shared name.

Each case writes small Markdown files, parses them with the real parser, extracts facts with the rule-based
extractor and links them with ``document_edges``, as ``evidence build`` does."""

from __future__ import annotations

from pathlib import Path

from graphforge.evidence.base import WorkspaceSpan
from graphforge.evidence.doc_links import document_edges, version_rank
from graphforge.evidence.rule_based import RuleBasedExtractor
from graphforge.models.evidence import DependencyKind
from graphforge.parsers import parse_file
from graphforge.parsers.base import ParseLimits


def _supersedes(root: Path, files: dict[str, str]) -> set[tuple[str, str]]:
    """(newer, older) path pairs of the supersedes edges over the given files."""
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
    by_id = {f.fact_id: path_of[f.span_id] for f in facts}
    return {(by_id[e.src_fact_id], by_id[e.dst_fact_id]) for e in document_edges(facts, spans)
            if e.kind is DependencyKind.SUPERSEDES}


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

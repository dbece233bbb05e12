"""A folder with a re-issued policy (two dated issues, most lines alike: versions), end to end (load ->
evidence -> specs, a real Neo4j): the checklist is built from the current issue, never the superseded one;
its rows are mapped against the earlier issue; the requirement the new issue rewords is warned against."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphforge.context import StageContext
from graphforge.specs.families._common import two_file_criteria
from graphforge.stages import build_evidence, compile_specs, load_workspace
from graphforge.stores import specs as specs_store

pytestmark = pytest.mark.neo4j

KEPT = [
    "Travellers must book rail travel in standard class for journeys under three hours.",
    "Line managers shall approve every overnight stay before the booking is made.",
    "Receipts must be attached to each expense claim within thirty days of travel.",
    "Travellers shall use the council's preferred hotel list where a listed hotel is available.",
]
OLD_RULE = ("Mileage claims must state the start and end postcode of each journey and be submitted "
            "through the paper claim form.")
NEW_RULE = ("Mileage claims must state the start and end postcode of each journey and be submitted "
            "through the online expenses portal.")


def _policy(year: int, rule: str) -> str:
    lines = [f"# Travel and Expenses Policy {year}", "",
             f"Approved by the Employment Committee, March {year}.", "", "## Rules", ""]
    lines += [f"- {r}" for r in [*KEPT, rule]]
    return "\n".join(lines) + "\n"


def _checklist(ctx: StageContext, root: Path, old: str, new: str) -> compile_specs.CompileSpecsResult:
    (root / "policy").mkdir(parents=True)
    (root / "policy" / "travel_policy_2023-04-01.md").write_text(old, encoding="utf-8")
    (root / "policy" / "travel_policy_2024-02-15.md").write_text(new, encoding="utf-8")
    (root / "team_notes.md").write_text("# Team notes\n\nThe finance team meets on Mondays.\n",
                                        encoding="utf-8")
    loaded = load_workspace.run(ctx, load_workspace.LoadWorkspaceParams(root=root, jobs=1,
                                                                       use_llm_roles=False))
    build_evidence.run(ctx, build_evidence.BuildEvidenceParams(extractor="rule-based"))
    return compile_specs.run(ctx, compile_specs.CompileSpecsParams(
        workspace_id=loaded.workspace_id, compiler="template", family="compliance_checklist"))


def test_a_reissued_policy_gives_a_checklist_of_the_current_issue(ctx: StageContext, tmp_path: Path) -> None:
    compiled = _checklist(ctx, tmp_path / "travel-policy", _policy(2023, OLD_RULE), _policy(2024, NEW_RULE))
    [summary] = compiled.specs
    spec = specs_store.load_spec(ctx.graph, summary.spec_id)
    anchors = specs_store.criterion_anchors(ctx.graph, spec.spec_id)
    path_of = {a.fact_id: a.path for a in anchors}
    items = [c for c in spec.positive if c.check == "item"]
    assert items and all(path_of[c.anchors[0]] == "policy/travel_policy_2024-02-15.md" for c in items)
    assert "Earlier version" in spec.deliverables[0].required_columns
    mapped = [c for c in spec.positive if c.check == "cites" and c.expected == "travel_policy_2023-04-01.md"]
    assert mapped and {c.criterion_id for c in mapped} <= set(two_file_criteria(spec, path_of))
    [stale] = [c for c in spec.negative if c.check == "stale"]
    assert path_of[stale.anchors[0]] == "policy/travel_policy_2023-04-01.md"
    assert "paper" in (stale.expected or "")


def test_no_checklist_of_a_superseded_issue(ctx: StageContext, tmp_path: Path) -> None:
    """The current issue keeps too few rules for a checklist: the old issue's rules are no substitute."""
    new = _policy(2024, NEW_RULE).replace(f"- {KEPT[0]}\n", "").replace(f"- {KEPT[1]}\n", "")
    compiled = _checklist(ctx, tmp_path / "travel-policy", _policy(2023, OLD_RULE), new)
    for summary in compiled.specs:
        spec = specs_store.load_spec(ctx.graph, summary.spec_id)
        anchors = specs_store.criterion_anchors(ctx.graph, spec.spec_id)
        items = {a for c in spec.positive if c.check == "item" for a in c.anchors}
        assert all(a.path != "policy/travel_policy_2023-04-01.md" for a in anchors if a.fact_id in items)

"""Task families on generated office files: text-only workspaces, versions, seeds that pick the family,
a toy family added from outside the package, and the oracle passing the judge while injected errors fail."""

from __future__ import annotations

from pathlib import Path

import docx
import pytest

from graphforge.context import StageContext
from graphforge.graphdb import cypher
from graphforge.oracle.agent import InjectKind
from graphforge.specs.families import load_families
from graphforge.specs.templates import GraphFact
from graphforge.stages import (
    build_evidence,
    compile_specs,
    judge_trajectories,
    load_workspace,
    rollout_oracle,
)
from graphforge.stores import specs as specs_store

pytestmark = pytest.mark.neo4j

HANDBOOK = """# Records Handbook

## Purpose

This handbook sets out how the records office keeps case files.

## Definitions

- **Case file**: the folder that holds every document received for one applicant.
- **Retention schedule**: the list that says how long each kind of record is kept.

Disposal means the destruction or transfer of records once their retention ends.

## Responsibilities

The records officer shall review every case file before it is closed.
Staff must store signed forms in the case file on the day they are received.
The records officer shall keep the retention schedule current and publish changes to staff.
Supervisors are responsible for approving every disposal of a case file.
Contractors must not remove original documents from the records office.

## Checklist for closing a case

- Confirm that the signed application form is in the case file
- Confirm that the decision letter was sent to the applicant
- Record the closing reason in the tracking log
- Move the case file to the closed records shelf
"""

PROCEDURE = """Closing procedure for case files

Section one: Scope

The procedure applies to every case file held by the records office.
The records officer shall review every case file before it is closed.
Staff must log each transfer of a case file in the tracking log.
Disposal means the destruction or transfer of records once their retention ends.
"""


def _write_docx(path: Path, text: str) -> None:
    doc = docx.Document()
    lines = text.splitlines()
    doc.add_heading(lines[0], level=1)
    for line in lines[1:]:
        if line.strip():
            doc.add_paragraph(line)
    doc.save(str(path))


def _text_only(root: Path) -> Path:
    (root / "policy").mkdir(parents=True)
    (root / "policy" / "records_handbook.md").write_text(HANDBOOK, encoding="utf-8")
    _write_docx(root / "policy" / "closing_procedure.docx", PROCEDURE)
    return root


RFQ = """# Request for Quotation: Case Tracking Tool

## 1. Scope

The vendor shall deliver a web tool for tracking case files.
The vendor must provide weekly status reports to the contracting officer.

## 5. Milestones

| No. | Due Date | Event |
|-----|----------|-------|
| 1 | March 1, 2024 | Solicitation released |
| 2 | March 8, 2024 | Questions due |
| 3 | {deadline} | Written quotes due |
| 4 | April 30, 2024 | Award of the order |

## 6. Submission

Quotes must be sent to the contracting officer by e-mail.
"""


def _versions(root: Path) -> Path:
    (root / "solicitation").mkdir(parents=True)
    (root / "solicitation" / "RFQ_as-issued_2024-03-01.md").write_text(
        RFQ.format(deadline="March 22, 2024"), encoding="utf-8")
    (root / "solicitation" / "RFQ.md").write_text(RFQ.format(deadline="March 27, 2024"), encoding="utf-8")
    return root


def _load(ctx: StageContext, root: Path, wid: str) -> None:
    load_workspace.run(ctx, load_workspace.LoadWorkspaceParams(
        root=root, workspace_id=wid, jobs=1, use_llm_roles=False))
    build_evidence.run(ctx, build_evidence.BuildEvidenceParams(workspace_id=wid, extractor="rule-based"))


def test_a_text_only_workspace_compiles_anchored_specs(ctx: StageContext, tmp_path: Path) -> None:
    root = _text_only(tmp_path / "text")
    assert not any(ch.isdigit() for p in root.rglob("*.md") for ch in p.read_text(encoding="utf-8"))
    _load(ctx, root, "ws-text")
    out = compile_specs.run(ctx, compile_specs.CompileSpecsParams(workspace_id="ws-text", compiler="template",
                                                                  all_families=True))
    families = {s.family for s in out.specs}
    assert {"compliance_checklist", "gap_analysis", "glossary"} <= families, out.skipped
    for summary in out.specs:
        spec = specs_store.load_spec(ctx.graph, summary.spec_id)
        anchors = specs_store.criterion_anchors(ctx.graph, spec.spec_id)
        assert all(a.value in a.span_text for a in anchors)
        assert all(c.anchors for c in spec.positive)
        assert spec.family == summary.family and spec.family_reason
    # The Browser's "task families per workspace" query shows what the compiler found.
    from graphforge.cli.browser import browser_query

    query = browser_query("workspace_families")
    records, _, _ = ctx.graph.driver.execute_query(query, database_=ctx.graph.database)
    [row] = [r.data() for r in records if r["workspace"] == "ws-text"]
    assert row["supported_families"] == out.supported["ws-text"]
    assert {c.split(" -> ")[0] for c in row["compiled_specs"]} == families


def test_every_spec_of_a_folder_with_cross_file_edges_has_a_criterion_needing_two_files(
    ctx: StageContext, tmp_path: Path
) -> None:
    # The handbook and the procedure restate one requirement and one definition: every family compiled from
    # the folder, even one whose own items all come from the handbook (its glossary, its checklist), asks for
    # both files, with an item of a kind it asks for anyway (a glossary gets no requirement row).
    root = _text_only(tmp_path / "two")
    _load(ctx, root, "ws-two")
    out = compile_specs.run(ctx, compile_specs.CompileSpecsParams(workspace_id="ws-two", compiler="template",
                                                                  all_families=True))
    assert len(out.specs) >= 3, out.skipped
    for summary in out.specs:
        anchors = specs_store.criterion_anchors(ctx.graph, summary.spec_id)
        files: dict[str, set[str]] = {}
        for a in anchors:
            files.setdefault(a.criterion_id, set()).add(str(a.path))
        assert any(len(paths) >= 2 for paths in files.values()), (summary.family, files)
        if summary.family == "glossary":
            spec = specs_store.load_spec(ctx.graph, summary.spec_id)
            firsts = [c.anchors[0] for c in spec.positive if c.check == "item"]
            kinds = {f.fact_id: f.kind for f in ctx.graph.read(
                compile_specs.GET_FACTS_BY_ID, GraphFact, workspace_id="ws-two", fact_ids=firsts)}
            assert firsts and {kinds[f] for f in firsts} == {"definition"}, kinds


def test_a_moved_deadline_links_the_versions_and_the_memo_asks_for_the_current_date(
        ctx: StageContext, tmp_path: Path) -> None:
    _load(ctx, _versions(tmp_path / "v"), "ws-versions")
    edges = ctx.graph.read_dicts(compile_specs.GET_WORKSPACE_DEPENDENCIES, workspace_id="ws-versions")
    kinds = {e["kind"] for e in edges}
    assert {"supersedes", "reconcile"} <= kinds
    supersedes = [e["note"] for e in edges if e["kind"] == "supersedes"]
    assert any(n.startswith("solicitation/RFQ.md is a later version of solicitation/RFQ_as-issued")
               for n in supersedes), supersedes
    out = compile_specs.run(ctx, compile_specs.CompileSpecsParams(
        workspace_id="ws-versions", compiler="template", family="version_change_memo"))
    assert [s.family for s in out.specs] == ["version_change_memo"], out.skipped
    spec = specs_store.load_spec(ctx.graph, out.specs[0].spec_id)
    current = [c for c in spec.positive if c.check == "item"]
    stale = [c for c in spec.negative if c.check == "stale"]
    assert any(c.expected == "2024-03-27" for c in current)
    assert any(c.expected == "2024-03-22" for c in stale)
    assert "2024-03-27" not in spec.statement and "March 27" not in spec.statement


def _seed(ctx: StageContext, seed_id: str, pattern: str, occupation: str) -> None:
    ctx.graph.driver.execute_query(
        "MERGE (s:Seed {seed_id: $seed_id}) MERGE (p:ExecutionPattern {name: $pattern}) "
        "MERGE (o:Occupation {soc_code: $soc}) SET o.title = $occupation "
        "MERGE (s)-[:USES_PATTERN]->(p) MERGE (s)-[:FOR_OCCUPATION]->(o)",
        seed_id=seed_id, pattern=pattern, soc="43-4199.00", occupation=occupation,
        database_=ctx.graph.database)


def test_the_seed_drives_the_family_and_the_deliverables(ctx: StageContext, tmp_path: Path) -> None:
    root = tmp_path / "both"
    _versions(root)
    _text_only(root)
    _load(ctx, root, "ws-both")
    _seed(ctx, "seed-plan", "planning and scheduling", "Project Management Specialists")
    _seed(ctx, "seed-audit", "review, audit and compliance checking", "Compliance Officers")
    plan = compile_specs.run(ctx, compile_specs.CompileSpecsParams(
        workspace_id="ws-both", compiler="template",
                                                                   seed_id="seed-plan"))
    audit = compile_specs.run(ctx, compile_specs.CompileSpecsParams(
        workspace_id="ws-both", compiler="template",
                                                                    seed_id="seed-audit"))
    assert [s.family for s in plan.specs] == ["deadline_timeline"]
    assert [s.family for s in audit.specs] == ["compliance_checklist"]
    assert plan.specs[0].deliverables != audit.specs[0].deliverables
    assert plan.specs[0].spec_id != audit.specs[0].spec_id
    spec = specs_store.load_spec(ctx.graph, audit.specs[0].spec_id)
    assert spec.seed_id == "seed-audit" and "compliance officer" in spec.statement.lower()
    assert "seed-audit" in spec.family_reason


def test_a_seed_whose_family_the_evidence_cannot_support_gets_the_nearest_with_the_reason(
        ctx: StageContext, tmp_path: Path) -> None:
    _load(ctx, _text_only(tmp_path / "t"), "ws-near")
    _seed(ctx, "seed-deck", "presentation and visual communication", "Public Relations Specialists")
    out = compile_specs.run(ctx, compile_specs.CompileSpecsParams(workspace_id="ws-near", compiler="template",
                                                                  seed_id="seed-deck"))
    assert len(out.specs) == 1 and out.specs[0].family != "briefing_deck"
    assert "does not support" in out.specs[0].family_reason


TOY_MODULE = '''
from graphforge.specs.families import Family
from graphforge.specs.families._common import SpecBuilder, request


def build(inp):
    facts = {f.fact_id: f for f in inp.graph.facts}
    picked = [facts[r["fact_id"]] for r in inp.rows if r["fact_id"] in facts][:2]
    if not picked:
        return None
    b = SpecBuilder(inp.graph.workspace_id, "toy_titles", inp.seed.seed_id, inp.version)
    d = b.deliverable("titles.md", "md", "titles", sections=("Titles",))
    for f in picked:
        b.item(f, d, "titles.md names a title")
    b.layout(d, "Titles", picked)
    statement = request(occupation=None, context="we need the titles.", ask="could you list them?", items=[],
                        deliverables=[(d, "a Markdown list under Titles")], constraints=[])
    return b.spec(statement, "")


FAMILY = Family(name="toy_titles", title="a list of titles", patterns=("record keeping and data entry",),
                inputs=("document",), formats=("md",), build=build)
'''

TOY_CYPHER = """// Toy family: document titles.
// $workspace_id: the workspace.
MATCH (w:Workspace {workspace_id: $workspace_id})-[:CONTAINS]->(:File)-[:HAS_SPAN]->(:Span)
      <-[:FROM_SPAN]-(f:Fact)
WHERE f.kind = 'metadata' AND f.entity = 'title'
RETURN f.fact_id AS fact_id ORDER BY fact_id
"""


def test_a_family_is_added_by_its_module_and_its_cypher_file_alone(ctx: StageContext, tmp_path: Path) -> None:
    (tmp_path / "fams").mkdir()
    (tmp_path / "fams" / "toy_titles.py").write_text(TOY_MODULE, encoding="utf-8")
    (tmp_path / "cy" / "families").mkdir(parents=True)
    for f in (cypher.CYPHER_DIR / "families").glob("*.cypher"):
        (tmp_path / "cy" / "families" / f.name).write_text(f.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "cy" / "families" / "toy_titles.cypher").write_text(TOY_CYPHER, encoding="utf-8")
    families = load_families([tmp_path / "fams"], cypher_dir=tmp_path / "cy")
    assert "toy_titles" in {f.name for f in families}
    _load(ctx, _text_only(tmp_path / "t"), "ws-toy")
    supported = dict((f.name, rows) for f, rows in
                     compile_specs.supported_families(ctx, "ws-toy", families))
    assert supported.get("toy_titles")
    toy = next(f for f in families if f.name == "toy_titles")
    graph = compile_specs.gather(ctx, "ws-toy")
    spec = toy.build(compile_specs.FamilyInput(graph=graph, seed=compile_specs.SeedContext(),
                                               rows=supported["toy_titles"]))
    assert spec is not None and spec.deliverables[0].name == "titles.md" and spec.positive


def _judge(ctx: StageContext) -> dict[str, float]:
    judged = judge_trajectories.run(ctx, judge_trajectories.JudgeTrajectoriesParams(use_llm=False))
    return {j.trajectory_id: j.q for j in judged.judgments}


def test_the_oracle_passes_every_family_and_injected_errors_fail(ctx: StageContext, tmp_path: Path) -> None:
    root = tmp_path / "all"
    _versions(root)
    _text_only(root)
    _load(ctx, root, "ws-all")
    out = compile_specs.run(ctx, compile_specs.CompileSpecsParams(workspace_id="ws-all", compiler="template",
                                                                  all_families=True))
    assert len({s.family for s in out.specs}) >= 4, out.skipped
    runs: dict[str, tuple[str, str, str | None]] = {}
    for s in out.specs:
        good = rollout_oracle.run(ctx, rollout_oracle.RolloutOracleParams(spec_id=s.spec_id)).trajectory_id
        wrong = rollout_oracle.run(ctx, rollout_oracle.RolloutOracleParams(
            spec_id=s.spec_id, inject=[InjectKind.WRONG_NUMBER])).trajectory_id
        confused = None
        if s.negative:
            confused = rollout_oracle.run(ctx, rollout_oracle.RolloutOracleParams(
                spec_id=s.spec_id, inject=[InjectKind.CONFUSER])).trajectory_id
        runs[s.family or ""] = (good, wrong, confused)
    q = _judge(ctx)
    for family, (good, wrong, confused) in runs.items():
        assert q[good] == pytest.approx(1.0), family
        assert q[wrong] < q[good], family
        if confused is not None:
            assert q[confused] < 0.9, family



def test_a_named_family_that_compiles_nothing_says_why_and_gives_no_other_family(
        ctx: StageContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A family whose pattern matches (the folder's titles) but whose build finds nothing worth asking: asked
    # for by name, it gives its skip reason, not a spec of a nearby family (that fall-back is for a family the
    # tool chose from the seed).
    from graphforge.specs.families import FAMILIES, FOLDERS_ENV

    fams = tmp_path / "fams"
    fams.mkdir()
    empty = TOY_MODULE.replace('"toy_titles"', '"toy_empty"').replace("[:2]", "[:0]")
    (fams / "toy_empty.py").write_text(empty, encoding="utf-8")
    (fams / "toy_empty.cypher").write_text(TOY_CYPHER, encoding="utf-8")
    monkeypatch.setenv(FOLDERS_ENV, str(fams))
    FAMILIES.refresh()
    try:
        _load(ctx, _text_only(tmp_path / "named"), "ws-named")
        out = compile_specs.run(ctx, compile_specs.CompileSpecsParams(
            workspace_id="ws-named", compiler="template", family="toy_empty"))
        assert "toy_empty" in out.supported["ws-named"] and len(out.supported["ws-named"]) >= 3, out.supported
        assert out.specs == [] and list(out.skipped) == ["ws-named:toy_empty"], (out.specs, out.skipped)
    finally:
        monkeypatch.undo()
        FAMILIES.refresh()

"""O*NET release, sectors and DIGITAL labels loaded into a real Neo4j."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from graphforge.cli.main import main
from graphforge.context import StageContext
from graphforge.demo.sample import taxonomy
from graphforge.errors import ConfigError, SourceFormatError
from graphforge.graphdb import chores
from graphforge.seeds.sectors import SOC_MAJOR_GROUPS
from graphforge.settings import GraphforgeSettings
from graphforge.stages import load_digital, load_onet
from tests.support.llm_server import ScriptedLLMServer, json_answer

pytestmark = pytest.mark.neo4j

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "onet_mini"


def _load(ctx: StageContext, path: Path, sectors: Path | None = None) -> load_onet.LoadOnetResult:
    return load_onet.run(ctx, load_onet.LoadOnetParams(path=path, sectors=sectors))


def test_loading_the_sample_twice_changes_no_counts(ctx: StageContext) -> None:
    first = _load(ctx, FIXTURE)
    before = chores.counts(ctx.graph)
    _load(ctx, FIXTURE)
    after = chores.counts(ctx.graph)
    assert before == after
    occupations = len(taxonomy.OCCUPATIONS)
    assert before.nodes["Occupation"] == first.occupations == occupations
    assert before.nodes["Task"] == first.tasks
    assert before.relationships["HAS_TYPE"] == first.task_dwa_links
    assert before.relationships["PERFORMS"] == first.tasks
    assert before.relationships["IN_SECTOR"] == occupations
    assert before.nodes["OnetRelease"] == 1
    # DWA -> IWA -> GWA: every DWA and IWA has exactly one PART_OF parent.
    assert before.relationships["PART_OF"] == first.dwas + first.iwas


def test_release_and_hierarchy_are_queryable(ctx: StageContext) -> None:
    _load(ctx, FIXTURE)
    rows = ctx.graph.driver.execute_query(
        "MATCH (r:OnetRelease)<-[:IN_RELEASE]-(o:Occupation {soc_code: '13-2011.00'})-[:PERFORMS]->(t:Task)"
        "-[:HAS_TYPE]->(:DWA)-[:PART_OF]->(:IWA)-[:PART_OF]->(g:GWA) "
        "RETURN r.release_id AS release, count(DISTINCT t) AS tasks, collect(DISTINCT g.name) AS gwas",
        database_=ctx.graph.database).records
    accountant = next(t for soc, _, _, t in taxonomy.OCCUPATIONS if soc == "13-2011.00")
    assert rows[0]["release"] == taxonomy.RELEASE_ID
    assert rows[0]["tasks"] == len(accountant)
    assert "Analyzing data or information" in rows[0]["gwas"]


def test_renamed_required_column_writes_nothing(ctx: StageContext, tmp_path: Path) -> None:
    # Break the last table the loader writes from, so a loader that wrote while reading would leave a trace.
    folder = taxonomy.write_release(
        tmp_path / "db_29_1_text", rename={"Tasks to DWAs": ("DWA ID", "DWA Code")}
    )
    with pytest.raises(SourceFormatError, match=r"Tasks to DWAs\.txt: missing required column 'DWA ID'"):
        _load(ctx, folder)
    counts = chores.counts(ctx.graph)
    assert {k: v for k, v in counts.nodes.items() if not k.startswith("__")} == {}


def test_xlsx_release_loads_the_same_graph(ctx: StageContext, tmp_path: Path) -> None:
    _load(ctx, FIXTURE)
    from_text = chores.counts(ctx.graph)
    chores.delete_data(ctx.graph)
    result = _load(ctx, taxonomy.write_release(tmp_path / "xlsx", "xlsx"))
    assert result.source_format == "xlsx"
    assert chores.counts(ctx.graph) == from_text


def test_user_sector_mapping_replaces_the_soc_groups_and_back(ctx: StageContext) -> None:
    default = _load(ctx, FIXTURE)
    mapped = _load(ctx, FIXTURE, sectors=FIXTURE / "sectors.csv")
    assert mapped.sector_scheme == "user:sectors.csv"
    assert mapped.sectors_pruned == default.sectors  # the SOC groups no occupation uses any more
    schemes = ctx.graph.driver.execute_query(
        "MATCH (o:Occupation)-[:IN_SECTOR]->(s:Sector) RETURN collect(DISTINCT s.scheme) AS schemes, "
        "count(o) AS links", database_=ctx.graph.database).records[0]
    assert schemes["schemes"] == ["user:sectors.csv"] and schemes["links"] == len(taxonomy.OCCUPATIONS)
    subs = ctx.graph.driver.execute_query(
        "MATCH (o:Occupation)-[:IN_SUB_SECTOR]->(sub:Sector)-[:PART_OF]->(top:Sector)<-[:IN_SECTOR]-(o) "
        "RETURN count(o) AS n", database_=ctx.graph.database).records[0]["n"]
    assert subs == len(taxonomy.OCCUPATIONS)
    again = _load(ctx, FIXTURE)
    assert again.sectors_pruned == mapped.sectors + mapped.sub_sectors
    assert chores.counts(ctx.graph).nodes["Sector"] == default.sectors


def test_digital_labels_mark_tasks_and_record_the_source(ctx: StageContext) -> None:
    _load(ctx, FIXTURE)
    result = load_digital.run(ctx, load_digital.LoadDigitalParams(
        mode=load_digital.DigitalMode.LABELS, labels=FIXTURE / "digital_labels.csv"))
    expected = taxonomy.task_labels()
    assert result.digital == sum(d for _, d in expected)
    assert result.not_digital == sum(not d for _, d in expected)
    assert result.unlabelled == 0 and result.labels_for_unknown_tasks == []
    sources = ctx.graph.driver.execute_query("MATCH (t:Task) RETURN collect(DISTINCT t.digital_source) AS s",
                                             database_=ctx.graph.database).records[0]["s"]
    assert len(sources) == 1 and sources[0].startswith("labels:") and "digital_labels.csv" in sources[0]


def test_all_candidates_is_explicit_and_recorded(ctx: StageContext) -> None:
    _load(ctx, FIXTURE)
    with pytest.raises(ConfigError):
        load_digital.run(ctx, load_digital.LoadDigitalParams(mode=load_digital.DigitalMode.LABELS))
    result = load_digital.run(
        ctx, load_digital.LoadDigitalParams(mode=load_digital.DigitalMode.ALL_CANDIDATES)
    )
    assert result.digital == result.tasks and result.source == "all-candidates"


def test_classification_without_a_chat_model_is_refused(ctx: StageContext) -> None:
    _load(ctx, FIXTURE)
    settings = ctx.settings.model_copy(update={"llm_base_url": None})
    bare = StageContext(settings=settings, graph=ctx.graph, run_id="t", out_dir=ctx.out_dir)
    with pytest.raises(ConfigError, match="GRAPHFORGE_LLM_BASE_URL"):
        load_digital.run(bare, load_digital.LoadDigitalParams(mode=load_digital.DigitalMode.LLM))


def test_llm_classification_stores_the_model(ctx: StageContext, scripted_llm: ScriptedLLMServer,
                                             llm_settings: GraphforgeSettings) -> None:
    _load(ctx, FIXTURE)
    # The scripted model calls a task digital unless it mentions physical work at a site.
    scripted_llm.responder = lambda req: json_answer(
        {"digital": "site" not in str(req.last_message.get("content", "")), "reason": "scripted"})
    llm_ctx = StageContext(settings=llm_settings, graph=ctx.graph, run_id="llm", out_dir=ctx.out_dir)
    result = load_digital.run(llm_ctx, load_digital.LoadDigitalParams(mode=load_digital.DigitalMode.LLM))
    sites = sum("site" in s for *_, tasks in taxonomy.OCCUPATIONS for s, _, _ in tasks)
    assert result.llm_calls == result.tasks == len(scripted_llm.chat_requests)
    assert result.not_digital == sites and result.model == llm_settings.llm_model
    models = ctx.graph.driver.execute_query("MATCH (t:Task) RETURN collect(DISTINCT t.digital_model) AS m",
                                            database_=ctx.graph.database).records[0]["m"]
    assert models == [llm_settings.llm_model]


def _cli_env(settings: GraphforgeSettings, monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in (("GRAPHFORGE_HOME", settings.home), ("GRAPHFORGE_BOLT_PORT", settings.bolt_port),
                       ("GRAPHFORGE_HTTP_PORT", settings.http_port)):
        monkeypatch.setenv(key, os.fspath(value) if isinstance(value, Path) else str(value))


def test_sectors_in_soc_structure_form_load_and_a_mapping_matching_nothing_prunes_nothing(
    ctx: StageContext, settings: GraphforgeSettings, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    _cli_env(settings, monkeypatch)
    default = _load(ctx, FIXTURE)
    before = chores.counts(ctx.graph)
    nothing = tmp_path / "nothing.csv"
    nothing.write_text("soc,sector\n53-0000,Transportation\n55-1000,Military officers\n")
    assert main(["load", "onet", str(FIXTURE), "--sectors", str(nothing)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"error: {nothing.resolve()}: the sector mapping matches none of the 23 occupations "
                   "(prefixes 53, 55-1); nothing loaded"]
    assert chores.counts(ctx.graph) == before and before.nodes["Sector"] == default.sectors
    groups = tmp_path / "groups.csv"  # the codes as the SOC structure file writes them
    groups.write_text("soc,sector\n" + "".join(f"{g}-0000,{name}\n" for g, name in SOC_MAJOR_GROUPS.items())
                      + "13-2000,Accounting and finance\n")
    assert main(["load", "onet", str(FIXTURE), "--sectors", str(groups), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["occupations_without_sector"] == [] and out["sector_scheme"] == "user:groups.csv"
    assert len(out["unused_sector_rules"]) == 23 + 1 - out["sectors"]
    finance = ctx.graph.driver.execute_query(
        "MATCH (:Occupation {soc_code: '13-2011.00'})-[:IN_SECTOR]->(s:Sector) RETURN s.name AS name",
        database_=ctx.graph.database).records
    assert [r["name"] for r in finance] == ["Accounting and finance"]

"""Seed building, coverage-gain selection, the coverage report and saved Browser queries, on the sample."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from graphforge.context import StageContext
from graphforge.graphdb import chores, cypher
from graphforge.settings import GraphforgeSettings
from graphforge.stages import build_seeds, load_digital, load_onet, report_coverage, select_seeds
from tests.support.llm_server import RecordedRequest, Reply, ScriptedLLMServer, json_answer

pytestmark = pytest.mark.neo4j

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "onet_mini"
DIMENSIONS = ("soc_code", "dwa_id", "pattern", "input_family")


def _taxonomy(ctx: StageContext) -> None:
    load_onet.run(ctx, load_onet.LoadOnetParams(path=FIXTURE))
    load_digital.run(ctx, load_digital.LoadDigitalParams(mode=load_digital.DigitalMode.LABELS,
                                                         labels=FIXTURE / "digital_labels.csv"))


def _rows(ctx: StageContext, text: str, **params: object) -> list[dict[str, object]]:
    records = ctx.graph.driver.execute_query(text, params, database_=ctx.graph.database).records
    return [r.data() for r in records]


def _rule_seeds(ctx: StageContext) -> build_seeds.BuildSeedsResult:
    _taxonomy(ctx)
    return build_seeds.run(ctx, build_seeds.BuildSeedsParams(backend=build_seeds.DemandBackend.RULE_BASED))


def test_every_seed_is_a_full_tuple_citing_evidence(ctx: StageContext) -> None:
    result = _rule_seeds(ctx)
    assert result.backend == "rule-based" and result.seeds_written > 0
    assert result.demands_dropped_unsupported == 0
    rows = _rows(
        ctx,
        """
        MATCH (s:Seed)
        RETURN count(s) AS seeds,
          count(CASE WHEN EXISTS { (s)-[:FOR_OCCUPATION]->(:Occupation) }
                 AND EXISTS { (s)-[:OF_TYPE]->(:DWA) }
                 AND EXISTS { (s)-[:USES_PATTERN]->(:ExecutionPattern) }
                 AND EXISTS { (s)-[:EXPECTS_INPUT]->(:InputFamily) } THEN 1 END) AS complete,
          count(CASE WHEN EXISTS { (s)-[:SUPPORTED_BY]->(:Evidence) } THEN 1 END) AS cited,
          collect(DISTINCT s.demand_source) AS sources""",
    )
    assert rows[0] == {"seeds": result.seeds_written, "complete": result.seeds_written,
                       "cited": result.seeds_written, "sources": ["rule-based"]}
    # Only DIGITAL tasks become seeds, and a seed's task type is one of its task's DWAs.
    wrong = _rows(ctx, """
        MATCH (s:Seed)-[:FROM_TASK]->(t:Task), (s)-[:OF_TYPE]->(d:DWA)
        WHERE t.digital <> true OR NOT EXISTS { (t)-[:HAS_TYPE]->(d) } RETURN count(s) AS n""")
    assert wrong[0]["n"] == 0


def test_rebuilding_seeds_changes_nothing(ctx: StageContext) -> None:
    first = _rule_seeds(ctx)
    before = chores.counts(ctx.graph)
    ids = {r["id"] for r in _rows(ctx, "MATCH (s:Seed) RETURN s.seed_id AS id")}
    second = build_seeds.run(ctx, build_seeds.BuildSeedsParams(backend=build_seeds.DemandBackend.RULE_BASED))
    assert chores.counts(ctx.graph) == before and second.stale_seeds_deleted == 0
    assert {r["id"] for r in _rows(ctx, "MATCH (s:Seed) RETURN s.seed_id AS id")} == ids
    assert second.seeds_written == first.seeds_written


def test_llm_demands_are_checked_against_their_evidence(ctx: StageContext, scripted_llm: ScriptedLLMServer,
                                                        llm_settings: GraphforgeSettings) -> None:
    _taxonomy(ctx)

    def answer(request: RecordedRequest) -> Reply:
        prompt = str(request.last_message.get("content", ""))
        statement = re.search(r"Task statement: (.*)", prompt).group(1)  # type: ignore[union-attr]
        dwa = re.search(r"- (\S+): ", prompt).group(1)  # type: ignore[union-attr]
        return json_answer({"demands": [
            {"dwa_id": dwa, "demand": statement, "pattern": "data analysis and reporting",
             "input_family": "spreadsheet", "evidence_quote": " ".join(statement.split()[:4])},
            {"dwa_id": dwa, "demand": "Negotiate a merger with a competitor abroad",
             "pattern": "research and source synthesis", "input_family": "pdf",
             "evidence_quote": " ".join(statement.split()[:2])},
            {"dwa_id": dwa, "demand": statement, "pattern": "interpretive dance", "input_family": "pdf",
             "evidence_quote": statement}]})

    scripted_llm.responder = answer
    llm_ctx = StageContext(settings=llm_settings, graph=ctx.graph, run_id="llm", out_dir=ctx.out_dir)
    result = build_seeds.run(llm_ctx, build_seeds.BuildSeedsParams(backend=build_seeds.DemandBackend.LLM))
    tasks = result.tasks_seen
    assert result.backend.startswith("llm:") and result.llm_calls == tasks == len(scripted_llm.chat_requests)
    assert (result.demands_proposed, result.demands_dropped_unsupported, result.demands_dropped_invalid) == (
        3 * tasks, tasks, tasks)
    assert result.seeds_written == tasks
    models = _rows(ctx, "MATCH (s:Seed) RETURN collect(DISTINCT s.demand_source) AS src, "
                        "collect(DISTINCT s.demand_model) AS model")[0]
    assert models == {"src": ["llm"], "model": [llm_settings.llm_model]}


def _selected(ctx: StageContext) -> list[dict[str, object]]:
    return _rows(
        ctx,
        """
        MATCH (s:Seed) WHERE s.selection_rank IS NOT NULL
        MATCH (s)-[:FOR_OCCUPATION]->(o), (s)-[:OF_TYPE]->(d),
              (s)-[:USES_PATTERN]->(p), (s)-[:EXPECTS_INPUT]->(f)
        RETURN s.seed_id AS seed_id, s.selection_rank AS rank, o.soc_code AS soc_code, d.dwa_id AS dwa_id,
               p.name AS pattern, f.name AS input_family ORDER BY rank""",
    )


def test_selection_ranks_are_stored_and_lazy_matches_naive(ctx: StageContext) -> None:
    _rule_seeds(ctx)
    lazy = select_seeds.run(ctx, select_seeds.SelectSeedsParams(n=20))
    lazy_rows = _selected(ctx)
    naive = select_seeds.run(ctx, select_seeds.SelectSeedsParams(n=20, lazy=False))
    assert _selected(ctx) == lazy_rows
    vectorised = select_seeds.run(ctx, select_seeds.SelectSeedsParams(n=20, method="numpy"))
    assert _selected(ctx) == lazy_rows
    assert (lazy.method, naive.method, vectorised.method) == ("lazy", "naive", "numpy")
    assert [r["rank"] for r in lazy_rows] == list(range(1, 21))
    assert lazy.gain_evaluations < naive.gain_evaluations == vectorised.gain_evaluations
    assert lazy.distinct_selected == naive.distinct_selected
    # The reported distinct counts are the graph's.
    assert lazy.distinct_selected["occupation"] == len({r["soc_code"] for r in lazy_rows})


def test_selected_seeds_beat_random_subsets_on_every_dimension(ctx: StageContext) -> None:
    _rule_seeds(ctx)
    n = 16
    select_seeds.run(ctx, select_seeds.SelectSeedsParams(n=n))
    chosen = _selected(ctx)
    pool = _rows(ctx, """
        MATCH (s:Seed)-[:FOR_OCCUPATION]->(o), (s)-[:OF_TYPE]->(d), (s)-[:USES_PATTERN]->(p),
              (s)-[:EXPECTS_INPUT]->(f)
        RETURN o.soc_code AS soc_code, d.dwa_id AS dwa_id, p.name AS pattern, f.name AS input_family""")
    rng = random.Random(20240801)
    draws = [rng.sample(pool, n) for _ in range(200)]
    for dim in DIMENSIONS:
        ours = len({r[dim] for r in chosen})
        random_mean = sum(len({r[dim] for r in d}) for d in draws) / len(draws)
        assert ours > random_mean, (dim, ours, random_mean)


def test_rebalancing_caps_repeated_demands_and_balances_patterns(ctx: StageContext) -> None:
    _rule_seeds(ctx)
    result = select_seeds.run(ctx, select_seeds.SelectSeedsParams(n=32))
    rows = _rows(ctx, "MATCH (s:Seed) WHERE s.selection_rank IS NOT NULL "
                      "RETURN s.demand_normalized AS demand, s.pattern AS pattern")
    assert len(rows) == 32 == len({r["demand"] for r in rows})
    per_pattern: dict[object, int] = {}
    for r in rows:
        per_pattern[r["pattern"]] = per_pattern.get(r["pattern"], 0) + 1
    assert max(per_pattern.values()) <= result.pattern_quota or result.relaxed_picks > 0


def test_extend_adds_ranks_after_the_current_selection(ctx: StageContext) -> None:
    _rule_seeds(ctx)
    select_seeds.run(ctx, select_seeds.SelectSeedsParams(n=10))
    first = _selected(ctx)
    more = select_seeds.run(ctx, select_seeds.SelectSeedsParams(n=5, extend=True))
    rows = _selected(ctx)
    assert more.already_selected == 10 and more.selected == 5
    assert rows[:10] == first and [r["rank"] for r in rows] == list(range(1, 16))


def test_coverage_report_renders_with_graph_counts(ctx: StageContext, tmp_path: Path) -> None:
    _rule_seeds(ctx)
    select_seeds.run(ctx, select_seeds.SelectSeedsParams(n=16))
    result = report_coverage.run(ctx, report_coverage.ReportCoverageParams(out_dir=tmp_path / "cov"))
    for png in (result.heatmap_png, result.pool_heatmap_png):
        assert Path(png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    html = Path(result.html).read_text(encoding="utf-8")
    assert "sector x pattern cells" in html and "data:image/png;base64," in html
    chosen = _selected(ctx)
    assert result.selected.seeds == len(chosen)
    assert result.selected.occupations == len({r["soc_code"] for r in chosen})
    assert result.selected.patterns == len({r["pattern"] for r in chosen})
    assert result.pool.seeds >= result.selected.seeds and result.pool.cells >= result.selected.cells
    sectors = _rows(ctx, "MATCH (s:Sector) RETURN count(s) AS n")[0]["n"]
    assert result.cells_total == sectors * 16


BROWSER = cypher.CYPHER_DIR / "browser"


def test_browser_queries_return_what_they_claim(ctx: StageContext) -> None:
    _rule_seeds(ctx)
    select_seeds.run(ctx, select_seeds.SelectSeedsParams(n=12))
    gaps = _rows(ctx, (BROWSER / "coverage_gaps.cypher").read_text())
    selected_cells = {(r["sector"], r["pattern"]) for r in _rows(ctx, """
        MATCH (s:Seed)-[:FOR_OCCUPATION]->(:Occupation)-[:IN_SECTOR]->(sec:Sector), (s)-[:USES_PATTERN]->(p)
        WHERE s.selection_rank IS NOT NULL RETURN sec.name AS sector, p.name AS pattern""")}
    sectors = _rows(ctx, "MATCH (s:Sector) RETURN count(s) AS n")[0]["n"]
    assert len(gaps) == sectors * 16 - len(selected_cells)
    assert not {(g["sector"], g["pattern"]) for g in gaps} & selected_cells
    assert any(g["pool_candidates"] > 0 for g in gaps)

    top = _selected(ctx)[0]
    for seed_id in (top["seed_id"], None):  # None: the top-ranked seed
        context = _rows(ctx, (BROWSER / "seed_context.cypher").read_text(), seed_id=seed_id)
        assert len(context) == 1 and context[0]["seed_id"] == top["seed_id"]
        assert context[0]["hierarchy"] is not None and context[0]["evidence"] is not None
        assert context[0]["sector"] is not None and context[0]["task"] is not None

    tasks = _rows(ctx, (BROWSER / "occupation_tasks_dwas_seeds.cypher").read_text(), soc_code="13-2011.00")
    # The query returns paths (drawn as a graph in Browser); data() gives [start, TYPE, end] lists.
    statements = {r["performs"][2]["statement"] for r in tasks}
    performed = _rows(
        ctx, "MATCH (:Occupation {soc_code: '13-2011.00'})-[:PERFORMS]->(t) RETURN t.statement AS s"
    )
    assert statements == {r["s"] for r in performed}
    seeds = _rows(ctx, "MATCH (s:Seed {soc_code: '13-2011.00'}) RETURN count(s) AS n")[0]["n"]
    assert len({r["seeded"][0]["seed_id"] for r in tasks if r["seeded"]}) == seeds > 0

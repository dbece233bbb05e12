"""The benchmark loader and the contamination audit end to end on a real Neo4j."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphforge.audit import latest_audit, training_fingerprint
from graphforge.context import StageContext
from graphforge.demo.sample.benchmark import SAMPLE_NAME, plant_near_duplicate, write_benchmark_sample
from graphforge.errors import ConfigError
from graphforge.graphdb.graph import Graph
from graphforge.parsers import parse_file
from graphforge.stages import audit_contamination, load_benchmark
from graphforge.stages.audit_contamination import AuditContaminationParams

pytestmark = pytest.mark.neo4j

# Test-only setup: the workspace loader and seed stages own these writes in the product.
_ADD_FILE = """
MERGE (w:Workspace {workspace_id: $workspace_id})
MERGE (f:File {sha256: $sha256}) SET f.format = $format, f.valid = true
MERGE (w)-[:CONTAINS {path: $path, role: 'core'}]->(f)
WITH f UNWIND $spans AS s
MERGE (sp:Span {span_id: s.span_id}) SET sp.text = s.text, sp.ordinal = s.ordinal, sp.locator = s.locator
MERGE (f)-[:HAS_SPAN]->(sp)
"""
_ADD_SEED = """
MERGE (o:Occupation {soc_code: $soc_code}) SET o.title = $title
MERGE (s:Seed {seed_id: $seed_id}) MERGE (s)-[:FOR_OCCUPATION]->(o)
"""


def _add_training_file(graph: Graph, path: Path, workspace_id: str = "ws-1") -> str:
    parsed = parse_file(path)
    spans = [{"span_id": r.span_id, "text": r.text, "ordinal": r.ordinal, "locator": r.locator}
             for r in parsed.span_rows()]
    graph.driver.execute_query(_ADD_FILE, workspace_id=workspace_id, sha256=parsed.sha256,
                               format=parsed.format.value, path=path.name, spans=spans,
                               database_=graph.database)
    return parsed.sha256


def _count(graph: Graph, query: str) -> int:
    records, _, _ = graph.driver.execute_query(query, database_=graph.database)
    return int(records[0][0])


@pytest.fixture
def loaded(ctx: StageContext, tmp_path: Path) -> Path:
    """The bundled benchmark sample loaded, one clean training file, one seed for a benchmark occupation."""
    root = tmp_path / "bench"
    write_benchmark_sample(root)
    load_benchmark.run(ctx, load_benchmark.LoadBenchmarkParams(root=root, name=SAMPLE_NAME))
    clean = tmp_path / "ws" / "ledger-notes.md"
    clean.parent.mkdir(parents=True)
    clean.write_text(
        "# Ledger notes\n\nThe Brightwater finance team closed the second quarter books on time. "
        "Revenue rose in the northern region while freight costs fell against the prior year, "
        "and the controller asked for a variance table by region and product line.\n",
        encoding="utf-8",
    )
    _add_training_file(ctx.graph, clean)
    ctx.graph.driver.execute_query(_ADD_SEED, soc_code="13-2011.00", title="Accountants and Auditors",
                                   seed_id="seed-1", database_=ctx.graph.database)
    return root


def test_load_benchmark_writes_tasks_files_and_references(ctx: StageContext, tmp_path: Path) -> None:
    root = tmp_path / "bench"
    sample = write_benchmark_sample(root)
    result = load_benchmark.run(ctx, load_benchmark.LoadBenchmarkParams(root=root, name=SAMPLE_NAME))
    assert result.tasks == sample.tasks and result.files == sample.files
    assert result.references == sample.files and result.missing_references == []
    assert (
        _count(ctx.graph, "MATCH (:Benchmark)-[:HAS_TASK]->(t:BenchmarkTask) RETURN count(t)") == sample.tasks
    )
    assert _count(ctx.graph, "MATCH (f:BenchmarkFile) WHERE size(f.text) > 0 RETURN count(f)") == sample.files
    again = load_benchmark.run(ctx, load_benchmark.LoadBenchmarkParams(root=root, name=SAMPLE_NAME))
    assert again.references == result.references
    assert _count(ctx.graph, "MATCH ()-[r:REFERENCES]->() RETURN count(r)") == sample.files


def test_clean_run_records_no_overlaps(ctx: StageContext, loaded: Path) -> None:
    result = audit_contamination.run(ctx, AuditContaminationParams(benchmarks=[SAMPLE_NAME]))
    assert not result.found_overlaps
    assert result.hash_overlaps == 0 and result.ngram_overlap_pairs == 0 and result.near_duplicate_edges == 0
    assert result.training_files == 1 and result.benchmark_files == 20 and result.benchmark_prompts == 6
    # Taxonomy level: one of the six benchmark occupations has a training seed.
    assert (result.covered_occupations, result.benchmark_occupations) == (1, 6)
    assert "Accountants and Auditors" not in result.uncovered_occupations
    summary = latest_audit(ctx.graph, [SAMPLE_NAME])
    assert summary is not None and summary.audit_id == result.audit_id and summary.found_overlaps is False
    assert summary.training_fingerprint == training_fingerprint(ctx.graph)
    assert _count(ctx.graph, "MATCH ()-[r:NEAR_DUPLICATE]->() RETURN count(r)") == 0
    report = json.loads(Path(result.report_json).read_text(encoding="utf-8"))
    assert report["found_overlaps"] is False and Path(result.report_html).read_text().count("No pair shares")


def test_planted_near_duplicate_is_found_and_recorded(
    ctx: StageContext, loaded: Path, tmp_path: Path
) -> None:
    passage = plant_near_duplicate(loaded, tmp_path / "ws" / "meeting-minutes.txt")
    planted = _add_training_file(ctx.graph, tmp_path / "ws" / "meeting-minutes.txt")
    result = audit_contamination.run(ctx, AuditContaminationParams(benchmarks=[SAMPLE_NAME], top_k=5))
    assert result.found_overlaps and result.ngram_overlap_pairs == 1 and result.hash_overlaps == 0
    top = result.top_pairs[0]
    assert top.training_paths == ["meeting-minutes.txt"] and "notes.txt" in top.benchmark
    assert top.shared_ngrams == len(passage.split()) - 12  # every window inside the copied run
    assert " ".join(passage.lower().replace(",", "").replace(".", "").split()[:20]) in top.passages[0]
    records, _, _ = ctx.graph.driver.execute_query(
        "MATCH (b:BenchmarkFile)-[r:NEAR_DUPLICATE]->(f:File) RETURN f.sha256 AS f, r.shared_ngrams AS n, "
        "r.audit_id AS audit", database_=ctx.graph.database)
    assert [(r["f"], r["n"], r["audit"]) for r in records] == [(planted, top.shared_ngrams, result.audit_id)]
    summary = latest_audit(ctx.graph, [SAMPLE_NAME])
    assert summary is not None and summary.found_overlaps and summary.counts["near_duplicates"] == 1


def test_identical_file_is_a_file_level_overlap(ctx: StageContext, loaded: Path) -> None:
    copied = _add_training_file(ctx.graph, loaded / "reference_files" / "bm-0003" / "figures.csv", "ws-2")
    result = audit_contamination.run(ctx, AuditContaminationParams(benchmarks=[SAMPLE_NAME], method="exact"))
    assert result.found_overlaps and result.hash_overlaps == 1
    assert _count(ctx.graph, "MATCH (b:BenchmarkFile)-[r:NEAR_DUPLICATE {identical: true}]->(f:File) "
                             "WHERE b.sha256 = f.sha256 RETURN count(r)") == 1
    assert copied in Path(result.report_json).read_text(encoding="utf-8")


def test_rerun_on_the_same_graph_reuses_the_audit(ctx: StageContext, loaded: Path, tmp_path: Path) -> None:
    plant_near_duplicate(loaded, tmp_path / "ws" / "minutes.txt", task_id="bm-0004")
    _add_training_file(ctx.graph, tmp_path / "ws" / "minutes.txt")
    params = AuditContaminationParams(benchmarks=[SAMPLE_NAME])
    first = audit_contamination.run(ctx, params)
    second = audit_contamination.run(ctx, params)
    assert first.audit_id == second.audit_id
    assert _count(ctx.graph, "MATCH (a:Audit) RETURN count(a)") == 1
    assert _count(ctx.graph, "MATCH ()-[r:NEAR_DUPLICATE]->() RETURN count(r)") == first.near_duplicate_edges


def test_audit_of_an_unloaded_benchmark_is_refused(ctx: StageContext) -> None:
    with pytest.raises(ConfigError, match="not loaded"):
        audit_contamination.run(ctx, AuditContaminationParams(benchmarks=["nope"]))

"""Load a benchmark folder (tasks, reference files with parsed text, occupation links) into the graph."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from graphforge.audit.occupations import link_occupations
from graphforge.context import StageContext
from graphforge.graphdb import cypher
from loaders.benchmark import read_benchmark

MERGE_BENCHMARKS = cypher.load("benchmark/merge_benchmarks")
MERGE_BENCHMARK_TASKS = cypher.load("benchmark/merge_benchmark_tasks")
MERGE_BENCHMARK_FILES = cypher.load("benchmark/merge_benchmark_files")
LINK_BENCHMARK_FILES = cypher.load("benchmark/link_benchmark_files")
LINK_BENCHMARK_REFERENCES = cypher.load("benchmark/link_benchmark_references")
LINK_BENCHMARK_GOLD = cypher.load("benchmark/link_benchmark_gold")


class LoadBenchmarkParams(BaseModel):
    """Options of the load_benchmark stage."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    root: Path = Field(description="Task records (*.jsonl / *.json) at the top, reference files below "
                                   "(see loaders.benchmark).")
    name: str = Field(min_length=1, description="The audit and the export refer to the benchmark by it.")


class LoadBenchmarkResult(BaseModel):
    """What the load_benchmark stage did."""

    benchmark: str
    tasks: int
    files: int
    invalid_files: list[str]  # "path: reason" for files the parsers could not read (kept, without text)
    references: int
    missing_references: list[str]
    gold: int = 0  # expert deliverables linked (the eval oracle's answers)
    missing_gold: list[str] = []
    refused: list[str] = []  # "path: reason": records and entries the reader refused (the rest loaded)
    occupations: int  # distinct occupation titles or codes the tasks name
    occupation_links: int  # tasks linked to a taxonomy Occupation (0 when no taxonomy is loaded yet)
    chars: int


def run(ctx: StageContext, params: LoadBenchmarkParams) -> LoadBenchmarkResult:
    """Load a benchmark folder's tasks, reference files (parsed) and occupation links into the graph."""
    src = read_benchmark(params.root, params.name)
    graph = ctx.graph
    graph.write(MERGE_BENCHMARKS, [src.benchmark])
    graph.write(MERGE_BENCHMARK_TASKS, src.tasks)
    graph.write(MERGE_BENCHMARK_FILES, src.files)
    graph.write(LINK_BENCHMARK_FILES, src.file_links)
    references = graph.write(LINK_BENCHMARK_REFERENCES, src.references)
    gold = graph.write(LINK_BENCHMARK_GOLD, src.gold)
    links = link_occupations(graph, [src.benchmark.name])
    paths = {link.sha256: link.path for link in src.file_links}
    invalid = sorted(f"{paths.get(f.sha256, f.sha256)}: {f.invalid_reason}" for f in src.files if not f.valid)
    occupations = {t.soc_code or (t.occupation or "").strip().lower() for t in src.tasks
                   if t.soc_code or t.occupation}
    return LoadBenchmarkResult(benchmark=src.benchmark.name, tasks=len(src.tasks), files=len(src.files),
                               invalid_files=invalid, references=references,
                               missing_references=list(src.missing_references), gold=gold,
                               missing_gold=list(src.missing_gold), refused=list(src.refused),
                               occupations=len(occupations),
                               occupation_links=links, chars=sum(f.chars for f in src.files))


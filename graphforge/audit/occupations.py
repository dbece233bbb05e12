"""Benchmark tasks linked to taxonomy occupations: written on load, refreshed by the audit."""

from __future__ import annotations

from graphforge.graphdb import cypher
from graphforge.graphdb.graph import Graph

LINK_BENCHMARK_OCCUPATIONS = cypher.load("benchmark/link_benchmark_occupations")


def link_occupations(graph: Graph, benchmarks: list[str]) -> int:
    """(Re)link the benchmarks' tasks to Occupation nodes; the taxonomy may load after the benchmark."""
    rows = graph.execute(LINK_BENCHMARK_OCCUPATIONS, benchmarks=benchmarks)
    return int(rows[0]["written"]) if rows else 0

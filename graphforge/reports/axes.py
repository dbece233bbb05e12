"""The one definition of sector, execution pattern and sector x pattern cell that every report uses.

A sector is a top-level ``Sector`` that at least one occupation is ``IN_SECTOR`` of (sub-sectors are
reached through ``IN_SUB_SECTOR`` and never count as sectors); a cell is one (sector, execution
pattern) pair, so there are ``len(sectors) * len(patterns)`` cells. Sectors are shown by name.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphforge.graphdb import cypher
from graphforge.graphdb.graph import Graph

GET_COVERAGE_AXES = cypher.load("coverage/get_coverage_axes")


@dataclass(frozen=True)
class Axes:
    sectors: list[tuple[str, str]]  # (code, name), in code order
    patterns: list[str]  # execution pattern names, in vocabulary order

    @property
    def sector_names(self) -> dict[str, str]:
        return dict(self.sectors)

    @property
    def cells(self) -> int:
        return len(self.sectors) * len(self.patterns)


def coverage_axes(graph: Graph) -> Axes:
    """Read the sector and pattern axes from the graph."""
    rows = graph.read_dicts(GET_COVERAGE_AXES)
    return Axes(sectors=[(str(r["key"]), str(r["name"] or r["key"])) for r in rows if r["axis"] == "sector"],
                patterns=[str(r["key"]) for r in rows if r["axis"] == "pattern"])

"""Coverage report: sector x pattern heatmaps (PNG) and an HTML page of seed diversity, from the graph."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from graphforge import cypher
from graphforge.context import StageContext
from graphforge.report_html import Section, write_report

COUNT_COVERAGE = cypher.load("coverage/count_coverage")
GET_SECTOR_PATTERN_CELLS = cypher.load("coverage/get_sector_pattern_cells")
GET_COVERAGE_AXES = cypher.load("coverage/get_coverage_axes")
COUNT_VALUES_BY_DIMENSION = cypher.load("coverage/count_values_by_dimension")
COUNT_UNIVERSE = cypher.load("coverage/count_universe")


class ReportCoverageParams(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    out_dir: Path


class CoverageCounts(BaseModel):
    seeds: int
    occupations: int
    sectors: int
    sub_sectors: int
    task_types: int
    patterns: int
    input_families: int
    cells: int  # realised sector x pattern cells


class ReportCoverageResult(BaseModel):
    html: str
    heatmap_png: str
    pool_heatmap_png: str
    json_path: str
    cells_total: int  # sectors x patterns
    selected: CoverageCounts
    pool: CoverageCounts
    universe: dict[str, int]


def cell_matrix(cells: list[dict[str, object]], sectors: list[str], patterns: list[str]) -> list[list[int]]:
    """Seeds per (sector row, pattern column), zeros where no seed falls (pure)."""
    index = {(str(c["sector_code"]), str(c["pattern"])): int(c["seeds"]) for c in cells}  # type: ignore[call-overload]
    return [[index.get((s, p), 0) for p in patterns] for s in sectors]


def plot_heatmap(matrix: list[list[int]], sector_names: list[str], patterns: list[str], title: str,
                 path: Path) -> Path:
    """One annotated heatmap PNG (matplotlib, Agg backend: no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    data = np.array(matrix, dtype=float).reshape(len(sector_names), len(patterns))
    fig, ax = plt.subplots(
        figsize=(2.2 + 0.55 * max(len(patterns), 1), 1.6 + 0.42 * max(len(sector_names), 1))
    )
    masked = np.ma.masked_equal(data, 0)
    # Empty cells are the gaps people look for: light grey, not the colormap's darkest colour.
    cmap = matplotlib.colormaps["viridis"].with_extremes(bad="#f2f2f2")
    image = ax.imshow(masked, aspect="auto", cmap=cmap, vmin=0.5, vmax=max(1.0, float(data.max())))
    ax.set_xticks(range(len(patterns)), labels=patterns, rotation=60, ha="right", fontsize=7)
    ax.set_yticks(range(len(sector_names)), labels=sector_names, fontsize=7)
    for (r, c), value in np.ndenumerate(data):
        if value:
            ax.text(c, r, str(int(value)), ha="center", va="center", fontsize=6, color="white")
    realised = int((data > 0).sum())
    ax.set_title(f"{title}: {realised} of {data.size} sector x pattern cells", fontsize=9)
    fig.colorbar(image, ax=ax, fraction=0.025, pad=0.01, label="seeds")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def run(ctx: StageContext, params: ReportCoverageParams) -> ReportCoverageResult:
    """Count coverage in the graph for selected seeds and the whole pool; write PNGs, HTML and JSON."""
    graph = ctx.graph
    selected = CoverageCounts.model_validate(graph.read_dicts(COUNT_COVERAGE, selected_only=True)[0])
    pool = CoverageCounts.model_validate(graph.read_dicts(COUNT_COVERAGE, selected_only=False)[0])
    axes = graph.read_dicts(GET_COVERAGE_AXES)
    sectors = [(a["key"], a["name"]) for a in axes if a["axis"] == "sector"]
    patterns = [a["key"] for a in axes if a["axis"] == "pattern"]
    codes, names = [s[0] for s in sectors], [s[1] for s in sectors]
    sel_matrix = cell_matrix(graph.read_dicts(GET_SECTOR_PATTERN_CELLS, selected_only=True), codes, patterns)
    pool_matrix = cell_matrix(
        graph.read_dicts(GET_SECTOR_PATTERN_CELLS, selected_only=False), codes, patterns
    )
    universe = graph.read_dicts(COUNT_UNIVERSE)[0]
    sel_values = graph.read_dicts(COUNT_VALUES_BY_DIMENSION, selected_only=True)
    pool_values = graph.read_dicts(COUNT_VALUES_BY_DIMENSION, selected_only=False)

    out = params.out_dir
    out.mkdir(parents=True, exist_ok=True)
    heat = plot_heatmap(sel_matrix, names, patterns, "Selected seeds", out / "coverage_sector_pattern.png")
    pool_heat = plot_heatmap(
        pool_matrix, names, patterns, "Candidate pool", out / "coverage_sector_pattern_pool.png"
    )
    cells_total = len(codes) * len(patterns)
    dims = [("occupations", "occupations"), ("sectors", "sectors"), ("sub-sectors", "sub_sectors"),
            ("task types (DWA)", "task_types"), ("execution patterns", "patterns"),
            ("input families", "input_families")]
    summary_rows = [
        [label, getattr(selected, key), getattr(pool, key), universe.get(key, "")] for label, key in dims
    ]
    summary_rows.insert(0, ["seeds", selected.seeds, pool.seeds, ""])
    summary_rows.append(["sector x pattern cells", f"{selected.cells} / {cells_total}",
                         f"{pool.cells} / {cells_total}", cells_total])
    gaps = [
        [names[r], patterns[c], pool_matrix[r][c]]
        for r in range(len(codes))
        for c in range(len(patterns))
        if sel_matrix[r][c] == 0 and pool_matrix[r][c] > 0
    ]
    shares = _share_rows(sel_values, pool_values, selected.seeds, pool.seeds)
    html = write_report(
        out / "coverage.html",
        "Seed coverage",
        [
            Section(
                "Distinct values",
                "Counted in Neo4j over the selected seeds and over the whole candidate pool; "
                "'in graph' is what the loaded taxonomy and vocabulary offer.",
                ["dimension", "selected", "candidate pool", "in graph"],
                summary_rows,
            ),
            Section("Sector x execution pattern (selected)", images=[heat]),
            Section("Sector x execution pattern (candidate pool)", images=[pool_heat]),
            Section(
                "Fillable gaps",
                "Cells with candidates in the pool but no selected seed.",
                ["sector", "execution pattern", "pool candidates"],
                gaps,
            ),
            Section(
                "Share of seeds by pattern and input family",
                "",
                ["dimension", "value", "selected", "selected %", "pool", "pool %"],
                shares,
            ),
        ],
        subtitle=f"run {ctx.run_id}",
    )
    result = ReportCoverageResult(html=str(html), heatmap_png=str(heat), pool_heatmap_png=str(pool_heat),
                                  json_path=str(out / "coverage.json"), cells_total=cells_total,
                                  selected=selected, pool=pool, universe=universe)
    (out / "coverage.json").write_text(json.dumps({**result.model_dump(mode="json"), "sectors": names,
                                                   "patterns": patterns, "selected_cells": sel_matrix,
                                                   "pool_cells": pool_matrix}, indent=2), encoding="utf-8")
    return result


def _share_rows(selected: list[dict[str, object]], pool: list[dict[str, object]], n_sel: int,
                n_pool: int) -> list[list[object]]:
    sel = {(str(r["dimension"]), str(r["value"])): int(r["seeds"]) for r in selected}  # type: ignore[call-overload]
    rows: list[list[object]] = []
    for r in pool:
        key = (str(r["dimension"]), str(r["value"]))
        n = int(r["seeds"])  # type: ignore[call-overload]
        k = sel.get(key, 0)
        rows.append([key[0], key[1], k, f"{100 * k / n_sel:.1f}" if n_sel else "-", n,
                     f"{100 * n / n_pool:.1f}" if n_pool else "-"])
    return rows

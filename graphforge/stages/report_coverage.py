"""Coverage report: sector x pattern heatmaps (PNG) and an HTML page of seed diversity, from the graph."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from graphforge.context import StageContext
from graphforge.graphdb import cypher
from graphforge.reports.axes import coverage_axes
from graphforge.reports.html import Section, write_report

COUNT_COVERAGE = cypher.load("coverage/count_coverage")
GET_SECTOR_PATTERN_CELLS = cypher.load("coverage/get_sector_pattern_cells")
COUNT_VALUES_BY_DIMENSION = cypher.load("coverage/count_values_by_dimension")
COUNT_UNIVERSE = cypher.load("coverage/count_universe")


class ReportCoverageParams(BaseModel):
    """Options of the report_coverage stage."""

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
    """What the report_coverage stage did."""

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
                 path: Path, unit: str = "seeds") -> Path:
    """One annotated heatmap PNG (matplotlib, Agg backend: no display needed).

    Colour is the count in the cell, one colour per whole count; when every filled cell holds the same
    count the colour bar would say nothing, so a legend names that count instead. Empty cells (the gaps
    people look for) are light grey; annotations pick black or white by the cell's brightness.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.colors import BoundaryNorm
    from matplotlib.patches import Patch

    data = np.array(matrix, dtype=float).reshape(len(sector_names), len(patterns))
    fig, ax = plt.subplots(
        figsize=(4.5 + 0.6 * max(len(patterns), 1), 2.2 + 0.42 * max(len(sector_names), 1))
    )
    if data.size == 0:
        ax.axis("off")
        ax.text(0.5, 0.5, "Not enough data: no sectors or execution patterns in the graph yet.",
                ha="center", va="center")
        return _save(fig, path)
    top = max(1, int(data.max()))
    filled = sorted({int(v) for v in data.flatten() if v > 0})
    cmap = matplotlib.colormaps["viridis"].resampled(top).with_extremes(bad="#eeeeee")
    norm = BoundaryNorm(np.arange(0.5, top + 1.5), cmap.N)
    image = ax.imshow(np.ma.masked_equal(data, 0), aspect="auto", cmap=cmap, norm=norm)
    ax.set_xticks(range(len(patterns)), labels=[_wrap(p, 24) for p in patterns], rotation=50, ha="right",
                  fontsize=8)
    ax.set_yticks(range(len(sector_names)), labels=[_wrap(n, 38) for n in sector_names], fontsize=8)
    ax.set_xlabel("execution pattern", fontsize=9)
    ax.set_ylabel("sector", fontsize=9)
    for (r, c), value in np.ndenumerate(data):
        if value:
            red, green, blue, _ = cmap(norm(value))
            dark = 0.299 * red + 0.587 * green + 0.114 * blue < 0.55
            ax.text(c, r, str(int(value)), ha="center", va="center", fontsize=8,
                    color="white" if dark else "black")
    realised = int((data > 0).sum())
    ax.set_title(f"{title}: {realised} of {data.size} sector x pattern cells hold {unit}", fontsize=10)
    if len(filled) > 1:
        bar = fig.colorbar(image, ax=ax, fraction=0.03, pad=0.01,
                           ticks=range(1, top + 1) if top <= 12 else None)
        bar.set_label(f"{unit} in the cell")
    else:
        one = filled[0] if filled else 0
        noun = unit[:-1] if one == 1 and unit.endswith("s") else unit  # "1 seed", "2 seeds"
        ax.legend(handles=[Patch(color=cmap(norm(max(one, 1))), label=f"{one} {noun} in the cell"),
                           Patch(color="#eeeeee", label=f"no {unit} (gap)")],
                  loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8, frameon=False)
    return _save(fig, path)


def _save(fig: object, path: Path) -> Path:
    import matplotlib.pyplot as plt

    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120, bbox_inches="tight")  # type: ignore[attr-defined]
    plt.close(fig)  # type: ignore[arg-type]
    return path


def _wrap(text: str, width: int) -> str:
    """Break a long tick label onto lines instead of cutting it."""
    import textwrap

    return "\n".join(textwrap.wrap(text, width)) or text


def run(ctx: StageContext, params: ReportCoverageParams) -> ReportCoverageResult:
    """Count coverage in the graph for selected seeds and the whole pool; write PNGs, HTML and JSON."""
    graph = ctx.graph
    selected = CoverageCounts.model_validate(graph.read_dicts(COUNT_COVERAGE, selected_only=True)[0])
    pool = CoverageCounts.model_validate(graph.read_dicts(COUNT_COVERAGE, selected_only=False)[0])
    axes = coverage_axes(graph)  # the one definition of sector and cell every report shares
    sectors, patterns = axes.sectors, axes.patterns
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
        pool_matrix, names, patterns, "Candidate pool", out / "coverage_sector_pattern_pool.png",
        unit="candidate seeds",
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

"""Corpus report: the statistics the paper reports on its corpus, read from the graph, as HTML with plots."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from graphforge.context import StageContext
from graphforge.graphdb import cypher
from graphforge.reports.axes import coverage_axes

STREAM_CORPUS_TRAJECTORIES = cypher.load("corpus/stream_corpus_trajectories")
COUNT_TAXONOMY_DIMENSIONS = cypher.load("corpus/count_taxonomy_dimensions")
COUNT_ADMISSION_FUNNEL = cypher.load("corpus/count_admission_funnel")
COUNT_TRAJECTORY_STATUSES = cypher.load("corpus/count_trajectory_statuses")
GET_JUDGMENT_SCORES = cypher.load("corpus/get_judgment_scores")
COUNT_SPEC_REVISIONS = cypher.load("corpus/count_spec_revisions")

UNLINKED = "(unlinked)"  # a trajectory whose spec -> workspace -> seed path is missing in the graph


class ReportCorpusParams(BaseModel):
    """Options of the report_corpus stage."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    out_dir: Path | None = Field(None, description="None: <ctx.out_dir>/reports.")
    statuses: list[str] | None = Field(["admitted"], description="The corpus; None: every trajectory.")
    admit_q: float = 0.90
    token_ceiling: int = Field(262_144, ge=1, description="The paper's packed-sequence training ceiling.")


class SectorRef(BaseModel):
    code: str
    title: str


class CorpusTrajectory(BaseModel):
    """One corpus trajectory and its facets, as stream_corpus_trajectories returns it."""

    trajectory_id: str
    status: str | None = None
    steps: int | None = None
    tokens: int | None = None
    patterns: list[str] = Field(default_factory=list)
    sectors: list[SectorRef] = Field(default_factory=list)
    task_types: list[str] = Field(default_factory=list)
    occupations: list[str] = Field(default_factory=list)
    formats: list[str] = Field(default_factory=list)


class Dimensions(BaseModel):
    sectors: int
    patterns: int
    task_types: int
    occupations: int


class Funnel(BaseModel):
    trajectories: int
    materialised: int
    judged: int
    passed_q: int
    admitted: int  # after cleaning


class Revisions(BaseModel):
    initial_specs: int
    revised_specs: int
    reused: int
    rerun: int


class Share(BaseModel):
    name: str
    trajectories: int
    share: float


class Cell(BaseModel):
    sector: str
    pattern: str
    trajectories: int


class Summary(BaseModel):
    n: int
    mean: float | None
    median: float | None
    p95: float | None
    max: float | None


class QSummary(BaseModel):
    arm: str
    judgments: int
    mean: float
    median: float
    p05: float
    p95: float
    above_threshold: float  # share with Q > admit_q


class ReportCorpusResult(BaseModel):
    """What the report_corpus stage did."""

    statuses: list[str] | None
    trajectories: int
    unlinked: int
    by_pattern: list[Share]
    by_sector: list[Share]
    patterns_covered: int
    patterns_total: int
    sectors_covered: int
    sectors_total: int
    cells: list[Cell]
    cells_realised: int
    cells_possible: int
    task_types: int
    task_types_total: int
    occupations: int
    steps: Summary
    tokens: Summary
    token_ceiling: int
    at_token_ceiling: int
    formats: list[Share]
    pdf_share: float | None
    funnel: Funnel
    status_counts: dict[str, int]
    q: list[QSummary]
    admit_q: float
    revisions: Revisions
    revision_reuse_rate: float | None  # reused / (reused + rerun); None ("n/a") when nobody recorded it
    outputs: dict[str, str] = Field(default_factory=dict)


def run(ctx: StageContext, params: ReportCorpusParams) -> ReportCorpusResult:
    """Query the graph, compute the corpus statistics and write corpus_report.html / .json with plots."""
    rows = list(ctx.graph.stream(STREAM_CORPUS_TRAJECTORIES, CorpusTrajectory, statuses=params.statuses))
    axes = coverage_axes(ctx.graph)  # sectors and patterns: the definition the coverage report uses too
    sizes = ctx.graph.read_dicts(COUNT_TAXONOMY_DIMENSIONS)[0]
    dims = Dimensions(sectors=len(axes.sectors), patterns=len(axes.patterns), task_types=sizes["task_types"],
                      occupations=sizes["occupations"])
    funnel = ctx.graph.read(COUNT_ADMISSION_FUNNEL, Funnel, admit_q=params.admit_q)[0]
    statuses = {r["status"]: int(r["trajectories"]) for r in ctx.graph.read_dicts(COUNT_TRAJECTORY_STATUSES)}
    scores = ctx.graph.read_dicts(GET_JUDGMENT_SCORES)
    revisions = ctx.graph.read(COUNT_SPEC_REVISIONS, Revisions)[0]
    result = summarise(rows, dims, funnel, statuses, scores, revisions, params)
    write_outputs(result, rows, scores, params.out_dir or ctx.out_dir / "reports")
    return result


def summarise(rows: Sequence[CorpusTrajectory], dims: Dimensions, funnel: Funnel, statuses: dict[str, int],
              scores: Sequence[dict[str, object]], revisions: Revisions,
              params: ReportCorpusParams) -> ReportCorpusResult:
    """Every statistic of the report from the queried rows (pure: unit-testable without Neo4j)."""
    total = len(rows)
    patterns = Counter(p for r in rows for p in (r.patterns or [UNLINKED]))
    sector_names = {s.code: s.title for r in rows for s in r.sectors}
    sectors = Counter(s for r in rows for s in ([x.code for x in r.sectors] or [UNLINKED]))
    cells = Counter((s.title or s.code, p) for r in rows for s in r.sectors for p in r.patterns)
    formats = Counter(f for r in rows for f in r.formats)
    ceiling = sum(1 for r in rows if r.tokens is not None and r.tokens >= params.token_ceiling)
    decided = revisions.reused + revisions.rerun

    def shares(counter: Counter[str], names: dict[str, str] | None = None) -> list[Share]:
        # Sectors by name (a code only when the graph has no name for it), never as slugs.
        return [Share(name=names.get(k, k) if names else k, trajectories=v, share=v / total if total else 0.0)
                for k, v in sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))]

    return ReportCorpusResult(
        statuses=params.statuses, trajectories=total,
        unlinked=sum(1 for r in rows if not r.patterns and not r.sectors),
        by_pattern=shares(patterns), by_sector=shares(sectors, sector_names),
        patterns_covered=len(set(patterns) - {UNLINKED}), patterns_total=dims.patterns,
        sectors_covered=len(set(sectors) - {UNLINKED}), sectors_total=dims.sectors,
        cells=[Cell(sector=s, pattern=p, trajectories=v) for (s, p), v in sorted(cells.items())],
        cells_realised=len(cells), cells_possible=dims.sectors * dims.patterns,
        task_types=len({t for r in rows for t in r.task_types}), task_types_total=dims.task_types,
        occupations=len({o for r in rows for o in r.occupations}),
        steps=summary([r.steps for r in rows if r.steps is not None]),
        tokens=summary([r.tokens for r in rows if r.tokens is not None]),
        token_ceiling=params.token_ceiling, at_token_ceiling=ceiling,
        formats=shares(formats), pdf_share=formats.get("pdf", 0) / total if total else None,
        funnel=funnel, status_counts=statuses, q=q_summaries(scores, params.admit_q), admit_q=params.admit_q,
        revisions=revisions, revision_reuse_rate=revisions.reused / decided if decided else None)


def summary(values: Sequence[float]) -> Summary:
    """Mean, median and 95th percentile (linear interpolation, as numpy and Cypher's percentileCont)."""
    if not values:
        return Summary(n=0, mean=None, median=None, p95=None, max=None)
    a = np.asarray(values, dtype=np.float64)
    return Summary(
        n=len(a),
        mean=float(a.mean()),
        median=float(np.median(a)),
        p95=float(np.percentile(a, 95)),
        max=float(a.max()),
    )


def q_summaries(scores: Sequence[dict[str, object]], admit_q: float) -> list[QSummary]:
    by_arm: dict[str, list[float]] = {}
    for row in scores:
        by_arm.setdefault(str(row["arm"]), []).append(float(row["q"]))  # type: ignore[arg-type]
    out = []
    for arm, values in sorted(by_arm.items()):
        a = np.asarray(values)
        p05, median, p95 = np.percentile(a, [5, 50, 95])
        out.append(QSummary(arm=arm, judgments=len(a), mean=float(a.mean()), median=float(median),
                            p05=float(p05), p95=float(p95), above_threshold=float((a > admit_q).mean())))
    return out


def _fmt(value: float | None, digits: int = 1) -> str:
    return "n/a" if value is None else f"{value:,.{digits}f}"


def _length_row(label: str, stats: Summary) -> tuple[object, ...]:
    """One row of the steps/tokens table: n, mean, median, p95, max."""
    return (label, stats.n, _fmt(stats.mean), _fmt(stats.median), _fmt(stats.p95), _fmt(stats.max, 0))


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def write_outputs(result: ReportCorpusResult, rows: Sequence[CorpusTrajectory],
                  scores: Sequence[dict[str, object]], out_dir: Path) -> dict[str, str]:
    """Write corpus_report.html (plots embedded), corpus_report.json and the PNGs under corpus_plots/.

    A plot is drawn only where the data supports one; otherwise its section says in words what there is
    and what is missing (one bar, one cell, every value alike, no value recorded)."""
    from graphforge.reports.html import Section, write_report

    plots = out_dir / "corpus_plots"
    plots.mkdir(parents=True, exist_ok=True)
    for stale in plots.glob("*.png"):  # a plot an earlier run drew and this one does not
        stale.unlink()
    corpus = "every trajectory" if result.statuses is None else "trajectories with status " + ", ".join(
        result.statuses)
    img = _Plots(plots)
    ceiling_share = _pct(result.at_token_ceiling / result.trajectories) if result.trajectories else "n/a"
    # The plots first: each either draws or leaves a note that its section prints instead.
    patterns = img.bars("patterns", result.by_pattern, "trajectories", "execution pattern",
                        result.trajectories)
    sectors = img.bars("sectors", result.by_sector, "trajectories", "sector", result.trajectories)
    cells = img.heatmap("cells", result.cells, result.trajectories)
    lengths = img.histograms("lengths", {
        "assistant steps": ("steps", [r.steps for r in rows if r.steps is not None]),
        "tokens": ("tokens", [r.tokens for r in rows if r.tokens is not None]),
    }, result.trajectories)
    formats = img.bars("formats", result.formats, "trajectories", "file format", result.trajectories)
    funnel = img.funnel("funnel", result.funnel)
    q_plot = img.q_histogram("q", scores, result.admit_q)

    def text(*parts: str) -> str:
        return " ".join(p for p in parts if p)

    sections = [
        Section(
            "Overview",
            text=f"Corpus: {corpus}.",
            columns=("statistic", "value"),
            rows=[
                ("trajectories", result.trajectories),
                ("execution patterns covered", f"{result.patterns_covered} of {result.patterns_total}"),
                ("sectors covered", f"{result.sectors_covered} of {result.sectors_total}"),
                ("sector x pattern cells realised", f"{result.cells_realised} of {result.cells_possible}"),
                ("distinct task types (DWA)", f"{result.task_types} of {result.task_types_total}"),
                ("distinct occupations", result.occupations),
                ("share of trajectories with a PDF", _pct(result.pdf_share)),
                (
                    f"trajectories at the {result.token_ceiling:,}-token ceiling",
                    f"{result.at_token_ceiling} ({ceiling_share})",
                ),
                ("revision reuse rate", _pct(result.revision_reuse_rate)),
                ("trajectories without a seed path in the graph", result.unlinked),
            ],
        ),
        Section(
            "Trajectories by execution pattern",
            text=img.notes.get("patterns", ""),
            columns=("pattern", "trajectories", "share"),
            rows=[(s.name, s.trajectories, _pct(s.share)) for s in result.by_pattern],
            images=patterns,
        ),
        Section(
            "Trajectories by sector",
            text=img.notes.get("sectors", ""),
            columns=("sector", "trajectories", "share"),
            rows=[(s.name, s.trajectories, _pct(s.share)) for s in result.by_sector],
            images=sectors,
        ),
        Section(
            "Sector x pattern cells",
            text=text(f"{result.cells_realised} of {result.cells_possible} cells "
                      f"realised ({result.sectors_total} sectors x "
                      f"{result.patterns_total} patterns in the graph).", img.notes.get("cells", "")),
            images=cells,
        ),
        Section(
            "Assistant steps and tokens per trajectory",
            text=img.notes.get("lengths", ""),
            columns=("", "n", "mean", "median", "p95", "max"),
            rows=[_length_row("assistant steps", result.steps), _length_row("tokens", result.tokens)],
            images=lengths,
        ),
        Section(
            "File formats across workspaces",
            text=text("Share of corpus trajectories whose workspace holds at least one file of the format.",
                      img.notes.get("formats", "")),
            columns=("format", "trajectories", "share"),
            rows=[(s.name, s.trajectories, _pct(s.share)) for s in result.formats],
            images=formats,
        ),
        Section(
            "Admission funnel",
            text=text(f"Over every trajectory in the graph; passed Q means Q > "
                      f"{result.admit_q:g} (also counted for trajectories later discarded by "
                      f"cleaning); admitted is after cleaning.", img.notes.get("funnel", "")),
            columns=("stage", "trajectories"),
            rows=[(k, v) for k, v in result.funnel.model_dump().items()]
            + [(f"status: {k}", v) for k, v in result.status_counts.items()],
            images=funnel,
        ),
        Section(
            "Q distribution",
            text=img.notes.get("q", ""),
            columns=("arm", "judgments", "mean", "median", "p05", "p95", f"share Q > {result.admit_q:g}"),
            rows=[
                (
                    q.arm,
                    q.judgments,
                    _fmt(q.mean, 3),
                    _fmt(q.median, 3),
                    _fmt(q.p05, 3),
                    _fmt(q.p95, 3),
                    _pct(q.above_threshold),
                )
                for q in result.q
            ],
            images=q_plot,
        ),
        Section(
            "Revision",
            text="A revision reuses the earlier rollout when the normalised statement is "
            "unchanged. Reuse is the revised spec's reused_rollout flag when set, else "
            "whether its rollout is a copy (REUSED_FROM) of the earlier one; the rate is "
            "reused / (reused + rerun), n/a when no revision has a rollout yet.",
            columns=("initial specs", "revised specs", "reused rollout", "re-run", "reuse rate"),
            rows=[
                (
                    result.revisions.initial_specs,
                    result.revisions.revised_specs,
                    result.revisions.reused,
                    result.revisions.rerun,
                    _pct(result.revision_reuse_rate),
                )
            ],
        ),
    ]
    html = write_report(out_dir / "corpus_report.html", "GraphForge corpus report", sections,
                        subtitle=f"{result.trajectories} trajectories ({corpus})")
    result.outputs = {"html": str(html), "json": str(out_dir / "corpus_report.json"), "plots": str(plots)}
    (out_dir / "corpus_report.json").write_text(json.dumps(result.model_dump(mode="json"), indent=2),
                                                encoding="utf-8")
    return result.outputs


MIN_FOR_HISTOGRAM = 8  # fewer values than this: each value is drawn as a point, not binned


class _Plots:
    """Small matplotlib (Agg) figures; each method returns the PNG paths it wrote.

    Count axes show integers only; every axis is labelled with its unit. A plot is drawn only where the
    data supports one: no chart of one bar or one heatmap cell, no histogram of values that are all
    alike, a strip of points (each value shown) where there are too few values to bin. Where nothing is
    drawn, ``notes[name]`` says in words what there is and what is missing, for the section's text.
    """

    def __init__(self, folder: Path) -> None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import MaxNLocator

        self.plt = plt
        self.integer = MaxNLocator
        self.folder = folder
        self.notes: dict[str, str] = {}

    def _save(self, fig: object, name: str) -> list[Path]:
        path = self.folder / f"{name}.png"
        fig.tight_layout()  # type: ignore[attr-defined]
        fig.savefig(path, dpi=110, bbox_inches="tight")  # type: ignore[attr-defined]
        self.plt.close(fig)  # type: ignore[arg-type]
        return [path]

    def _none(self, name: str, why: str) -> list[Path]:
        """No plot: say why in the section's text."""
        self.notes[name] = (self.notes.get(name, "") + " " + why).strip()
        return []

    def bars(self, name: str, shares: Sequence[Share], xlabel: str, ylabel: str, total: int) -> list[Path]:
        if not shares or total == 0:
            return self._none(name, f"No plot: the corpus has no trajectory with a {ylabel} yet.")
        if len(shares) == 1:
            return self._none(name, f"No plot: all {total} trajectories share one {ylabel}, "
                                    f"{shares[0].name}; a chart of one bar adds nothing to the table.")
        counts = {s.trajectories for s in shares}
        if len(counts) == 1:
            return self._none(name, f"No plot: each of the {len(shares)} {ylabel}s counts the same "
                                    f"{counts.pop()} trajectories; the table lists them.")
        top = list(shares)[:30][::-1]
        fig, ax = self.plt.subplots(figsize=(8, 0.32 * len(top) + 1.4))
        ax.barh([_wrap(s.name, 44) for s in top], [s.trajectories for s in top], color="#1f5fa8")
        ax.xaxis.set_major_locator(self.integer(integer=True))
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        if len(shares) > len(top):
            ax.set_title(f"the {len(top)} largest of {len(shares)}", fontsize=9)
        return self._save(fig, name)

    def heatmap(self, name: str, cells: Sequence[Cell], total: int) -> list[Path]:
        sectors = sorted({c.sector for c in cells})
        patterns = sorted({c.pattern for c in cells})
        if not cells:
            return self._none(name, "No plot: no corpus trajectory has both a sector and a pattern yet.")
        if len(sectors) < 2 or len(patterns) < 2:
            where = (f"one cell, {sectors[0]} x {patterns[0]} ({cells[0].trajectories} trajectories)"
                     if len(cells) == 1 else
                     f"one {'sector' if len(sectors) < 2 else 'pattern'} "
                     f"({sectors[0] if len(sectors) < 2 else patterns[0]})")
            return self._none(name, f"No heatmap: the corpus realises {where}; a heatmap needs trajectories "
                                    "in at least two sectors and two patterns. The bars above show the "
                                    "spread along the other axis.")
        from matplotlib.colors import BoundaryNorm

        grid = np.zeros((len(sectors), len(patterns)))
        for c in cells:
            grid[sectors.index(c.sector), patterns.index(c.pattern)] = c.trajectories
        top = int(grid.max())
        fig, ax = self.plt.subplots(figsize=(0.55 * len(patterns) + 4.5, 0.4 * len(sectors) + 2.4))
        cmap = self.plt.get_cmap("viridis", max(top, 1))
        norm = BoundaryNorm(np.arange(0.5, top + 1.5), cmap.N)  # one colour per whole count
        image = ax.imshow(np.where(grid > 0, grid, np.nan), cmap=cmap, norm=norm, aspect="auto")
        for (r, c), value in np.ndenumerate(grid):
            if value:
                shade = cmap(norm(value))
                dark = 0.299 * shade[0] + 0.587 * shade[1] + 0.114 * shade[2] < 0.55
                ax.text(c, r, str(int(value)), ha="center", va="center", fontsize=8,
                        color="white" if dark else "black")
        ax.set_xticks(range(len(patterns)), [_wrap(p, 24) for p in patterns], rotation=50, ha="right",
                      fontsize=8)
        ax.set_yticks(range(len(sectors)), [_wrap(s, 36) for s in sectors], fontsize=8)
        ax.set_xlabel("execution pattern")
        ax.set_ylabel("sector")
        bar = fig.colorbar(image, ax=ax, ticks=range(1, top + 1) if top <= 12 else None)
        bar.set_label("trajectories in the cell")
        return self._save(fig, name)

    def histograms(self, name: str, series: dict[str, tuple[str, list[int]]], total: int) -> list[Path]:
        drawable: dict[str, tuple[str, list[int]]] = {}
        for label, (unit, values) in series.items():
            if not values:
                self._none(name, f"No {label} plot: no trajectory records its {unit}"
                                 f"{'' if total else ' (the corpus is empty)'}.")
            elif len(set(values)) == 1:
                why = (" (no model call was counted: rule-based rollouts, or logs without token counts)"
                       if unit == "tokens" and values[0] == 0 else "")
                self._none(name, f"No {label} plot: every one of the {len(values)} trajectories records "
                                 f"{values[0]:,} {unit}{why}.")
            else:
                drawable[label] = (unit, values)
        if not drawable:
            return []
        fig, axes = self.plt.subplots(1, len(drawable), figsize=(5.2 * len(drawable), 3.4), squeeze=False)
        for ax, (label, (unit, values)) in zip(axes[0], drawable.items(), strict=True):
            if len(values) < MIN_FOR_HISTOGRAM:  # too few to bin: each value as a point
                ax.plot(values, [0] * len(values), "o", color="#1f5fa8", alpha=0.7)
                ax.set_yticks([])
                ax.set_title(f"each of the {len(values)} trajectories", fontsize=9)
            else:
                low, high = min(values), max(values)
                bins = np.linspace(low, high, min(30, max(5, len(values) // 3)) + 1)
                ax.hist(values, bins=bins, color="#1f5fa8")
                ax.set_ylabel("trajectories")
                ax.yaxis.set_major_locator(self.integer(integer=True))
            ax.axvline(float(np.median(values)), color="#c0392b", linestyle="--", linewidth=1, label="median")
            ax.set_xlabel(f"{label} per trajectory ({unit})")
            ax.set_xlim(left=0)
            ax.legend()
        return self._save(fig, name)

    def funnel(self, name: str, funnel: Funnel) -> list[Path]:
        stages = funnel.model_dump()
        if stages["trajectories"] == 0:
            return self._none(name, "No plot: the graph holds no trajectory yet (`graphforge rollout run` or "
                                    "`graphforge load trajectories`).")
        fig, ax = self.plt.subplots(figsize=(7, 2.9))
        labels = {"trajectories": "all trajectories", "materialised": "materialised", "judged": "judged",
                  "passed_q": "passed Q", "admitted": "admitted (after cleaning)"}
        ax.barh([labels.get(k, k) for k in stages][::-1], list(stages.values())[::-1], color="#1f5fa8")
        for y, value in enumerate(list(stages.values())[::-1]):
            ax.text(value, y, f" {value}", va="center", fontsize=8)
        ax.xaxis.set_major_locator(self.integer(integer=True))
        ax.set_xlabel("trajectories")
        ax.set_ylabel("funnel stage")
        return self._save(fig, name)

    def q_histogram(self, name: str, scores: Sequence[dict[str, object]], admit_q: float) -> list[Path]:
        if not scores:
            return self._none(name, "No plot: no trajectory has been judged yet (`graphforge judge`).")
        arms = sorted({str(s["arm"]) for s in scores})
        values = [[float(s["q"]) for s in scores if s["arm"] == arm] for arm in arms]  # type: ignore[arg-type]
        fig, ax = self.plt.subplots(figsize=(7, 0.5 * len(arms) + 2.4 if len(scores) < MIN_FOR_HISTOGRAM
                                             else 3.4))
        if len(scores) < MIN_FOR_HISTOGRAM:  # too few to bin: each judgment as a point, one row per arm
            for row, (arm, qs) in enumerate(zip(arms, values, strict=True)):
                ax.plot(qs, [row] * len(qs), "o", alpha=0.7, label=f"{arm} judge")
            ax.set_yticks(range(len(arms)), arms)
            ax.set_ylim(-0.7, len(arms) - 0.3)
        else:
            low = min(0.0, min(min(v) for v in values if v))
            ax.hist(values, bins=np.linspace(low, 1.0, 21).tolist(), label=[f"{a} judge" for a in arms],
                    stacked=True)
            ax.set_ylabel("judgments")
            ax.yaxis.set_major_locator(self.integer(integer=True))
        ax.axvline(admit_q, color="#c0392b", linestyle="--", linewidth=1, label=f"admit at Q > {admit_q:g}")
        ax.set_xlabel("Q, quality score (1 = every criterion met; negative criteria subtract)")
        ax.legend(fontsize=8)
        return self._save(fig, name)


def _wrap(text: str, width: int) -> str:
    """Break a long tick label onto lines instead of cutting it."""
    import textwrap

    return "\n".join(textwrap.wrap(text, width)) or text

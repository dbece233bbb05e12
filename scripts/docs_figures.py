"""Draws docs/img/graph-model.svg and docs/img/layers.svg.

Both files are committed; after changing the graph model or the layers, run
`python scripts/docs_figures.py` from the repository root and commit them again.
"""
from html import escape
from pathlib import Path

COL = {"taxonomy": "#dbe7f7", "seed": "#e4f3dc", "workspace": "#fdf0d5", "evidence": "#fbe0dc",
       "spec": "#ece1f5", "run": "#dff3f1", "eval": "#f1f1f1"}
W, H = 1180, 700
nodes = {  # name: (x, y, group)
    "Sector": (90, 60, "taxonomy"), "Occupation": (300, 60, "taxonomy"), "Task": (520, 60, "taxonomy"),
    "DWA": (720, 60, "taxonomy"), "IWA": (900, 60, "taxonomy"), "GWA": (1080, 60, "taxonomy"),
    "ExecutionPattern": (110, 200, "seed"), "Seed": (410, 200, "seed"), "InputFamily": (700, 200, "seed"),
    "Evidence": (1010, 275, "seed"),
    "Workspace": (410, 340, "workspace"), "File": (690, 340, "workspace"), "Span": (960, 340, "workspace"),
    "BenchmarkFile": (690, 450, "eval"),
    "TaskSpec": (330, 480, "spec"), "Deliverable": (120, 625, "spec"), "Criterion": (600, 625, "spec"),
    "Fact": (960, 520, "evidence"),
    "Trajectory": (110, 400, "run"), "Judgment": (110, 520, "run"), "Export": (110, 290, "run"),
}
edges = [  # (from, to, label, label offset)
    ("Occupation", "Sector", "IN_SECTOR"), ("Occupation", "Task", "PERFORMS"), ("Task", "DWA", "HAS_TYPE"),
    ("DWA", "IWA", "PART_OF"), ("IWA", "GWA", "PART_OF"),
    ("Seed", "Occupation", "FOR_OCCUPATION"), ("Seed", "DWA", "OF_TYPE"),
    ("Seed", "ExecutionPattern", "USES_PATTERN"), ("Seed", "InputFamily", "EXPECTS_INPUT"),
    ("Workspace", "Seed", "FOR_SEED"), ("Workspace", "File", "CONTAINS {role}"),
    ("File", "Span", "HAS_SPAN"), ("Fact", "Span", "FROM_SPAN"), ("BenchmarkFile", "File", "NEAR_DUPLICATE"),
    ("TaskSpec", "Workspace", "COMPILED_FROM"), ("TaskSpec", "Deliverable", "REQUIRES"),
    ("TaskSpec", "Criterion", "HAS_CRITERION"), ("Criterion", "Fact", "ANCHORED_TO"),
    ("Criterion", "Deliverable", "TARGETS"), ("Trajectory", "TaskSpec", "ATTEMPTS"),
    ("Judgment", "Trajectory", "SCORES"), ("Export", "Trajectory", "INCLUDES"),
]
edges = [e for e in edges if e[2]]
edges.append(("Seed", "Evidence", "SUPPORTED_BY"))


def box(name):
    x, y, _ = nodes[name]
    return x, y, max(70, 9 * len(name) + 24) / 2, 17


def clip(a, b):
    """The point where the segment from a's centre toward b leaves a's box."""
    ax, ay, hw, hh = box(a)
    bx, by, _, _ = box(b)
    dx, dy = bx - ax, by - ay
    t = min(hw / abs(dx) if dx else 1e9, hh / abs(dy) if dy else 1e9)
    return ax + dx * t, ay + dy * t


out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" width="{W}" height="{H}" '
       'font-family="Helvetica, Arial, sans-serif" font-size="13">',
       '<title>GraphForge graph model: the main labels and relationship types</title>',
       '<defs><marker id="a" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
       'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker></defs>',
       f'<rect width="{W}" height="{H}" fill="white"/>']
for a, b, label in edges:
    x1, y1 = clip(a, b)
    x2, y2 = clip(b, a)
    out.append(f'<line x1="{x1:.0f}" y1="{y1:.0f}" x2="{x2:.0f}" y2="{y2:.0f}" stroke="#555" '
               'stroke-width="1.3" marker-end="url(#a)"/>')
    mx, my = (x1 + x2) / 2, (y1 + y2) / 2
    tw = 7.2 * len(label) + 6
    out.append(f'<rect x="{mx - tw / 2:.0f}" y="{my - 9:.0f}" width="{tw:.0f}" height="16" fill="white" '
               'opacity="0.9"/>')
    out.append(f'<text x="{mx:.0f}" y="{my + 4:.0f}" text-anchor="middle" font-size="11" fill="#333">'
               f'{escape(label)}</text>')
# Self-loops drawn as labelled arcs.
for name, label, drop in (("Fact", "DEPENDS_ON {kind}", 70),
                          ("TaskSpec", "REVISED_FROM, PREVIOUS_VERSION", 100)):
    x, y, hw, hh = box(name)
    out.append(f'<path d="M{x + hw - 10:.0f},{y + hh:.0f} C{x + hw + 40:.0f},{y + 70:.0f} '
               f'{x - hw - 40:.0f},{y + 70:.0f} {x - hw + 10:.0f},{y + hh:.0f}" fill="none" stroke="#555" '
               'stroke-width="1.3" marker-end="url(#a)"/>')
    out.append(f'<text x="{x:.0f}" y="{y + drop:.0f}" text-anchor="middle" font-size="11" fill="#333">'
               f'{escape(label)}</text>')
for name, (x, y, group) in nodes.items():
    _, _, hw, hh = box(name)
    out.append(f'<rect x="{x - hw:.0f}" y="{y - hh:.0f}" width="{2 * hw:.0f}" height="{2 * hh:.0f}" rx="9" '
               f'fill="{COL[group]}" stroke="#333"/>')
    out.append(f'<text x="{x:.0f}" y="{y + 5:.0f}" text-anchor="middle" font-weight="bold">{name}</text>')
legend = [("taxonomy", "taxonomy (O*NET)"), ("seed", "seeds"), ("workspace", "workspace files"),
          ("evidence", "evidence"), ("spec", "task specs"), ("run", "rollouts, judging, export"),
          ("eval", "audit")]
x = 200
for g, text in legend:
    out.append(f'<rect x="{x}" y="{H - 30}" width="14" height="14" fill="{COL[g]}" stroke="#333"/>')
    out.append(f'<text x="{x + 20}" y="{H - 18}" font-size="11">{escape(text)}</text>')
    x += 20 + 7 * len(text) + 24
out.append("</svg>")
Path("docs/img/graph-model.svg").write_text("\n".join(out) + "\n")

# Layers
L = [("graphforge/cli/   graphforge/demo/",
      "the typer commands (cli/main.py builds the tree) and the demo's ordered STEPS",
      "#ece1f5"),
     ("graphforge/stages/", "one module per stage: run(ctx, Params) -> Result; no stage imports another",
      "#e4f3dc"),
     ("loaders/", "pure readers: source files -> graphforge.models (no graph, no context, no CLI)",
      "#fdf0d5"),
     ("graphforge/ (core)", "settings, models, figures, parsers, graphdb, stores, seeds, llm, evidence, "
      "specs, judge, export, eval", "#dbe7f7")]
W2, H2 = 980, 470
o = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W2} {H2}" width="{W2}" height="{H2}" '
     'font-family="Helvetica, Arial, sans-serif" font-size="14">',
     '<title>GraphForge layers: each imports only the layers below it</title>',
     '<defs><marker id="a" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" '
     'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker></defs>',
     f'<rect width="{W2}" height="{H2}" fill="white"/>']
for i, (name, text, colour) in enumerate(L):
    y = 20 + i * 90
    o.append(f'<rect x="20" y="{y}" width="680" height="62" rx="8" fill="{colour}" stroke="#333"/>')
    o.append(f'<text x="36" y="{y + 25}" font-weight="bold">{escape(name)}</text>')
    o.append(f'<text x="36" y="{y + 47}" font-size="12">{escape(text)}</text>')
    if i < len(L) - 1:
        o.append(f'<line x1="350" y1="{y + 62}" x2="350" y2="{y + 88}" stroke="#555" stroke-width="1.5" '
                 'marker-end="url(#a)"/>')
        o.append(f'<text x="360" y="{y + 80}" font-size="11" fill="#555">imports</text>')
y = 20 + 4 * 90
o.append(f'<rect x="20" y="{y}" width="680" height="62" rx="8" fill="#fff7e0" stroke="#333" '
         'stroke-dasharray="5,3"/>')
o.append(f'<text x="36" y="{y + 25}" font-weight="bold">Neo4j 5 (one graph per project)</text>')
o.append(f'<text x="36" y="{y + 47}" font-size="12">every query a named file in cypher/; schema/ holds '
         'checksummed migrations V0001__*.cypher</text>')
o.append(f'<line x1="350" y1="{y - 28}" x2="350" y2="{y}" stroke="#555" stroke-width="1.5" '
         'marker-end="url(#a)"/>')
o.append(f'<text x="360" y="{y - 10}" font-size="11" fill="#555">'
         'Bolt (graphdb/graph.py, values as parameters)</text>')
o.append('<rect x="720" y="110" width="240" height="152" rx="8" fill="#dff3f1" stroke="#333"/>')
o.append('<text x="736" y="136" font-weight="bold">training/</text>')
for k, t in enumerate(["trl SFT / RFT scripts", "reads exported JSONL / Parquet", "imports no graph code"]):
    o.append(f'<text x="736" y="{160 + k * 20}" font-size="12">{escape(t)}</text>')
o.append('<rect x="720" y="290" width="240" height="110" rx="8" fill="#f1f1f1" stroke="#333"/>')
o.append('<text x="736" y="316" font-weight="bold">bench/, tests/</text>')
for k, t in enumerate(["benchmarks against named peers", "unit (no database) and",
                       "integration (real Neo4j)"]):
    o.append(f'<text x="736" y="{338 + k * 20}" font-size="12">{escape(t)}</text>')
o.append("</svg>")
Path("docs/img/layers.svg").write_text("\n".join(o) + "\n")

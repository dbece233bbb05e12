"""On the demo graph: the Browser guide's queries find real data, the reports agree on sectors and cells,
and every report and the guide's anchor-chain graph render in headless Chromium without console errors.

Chromium is Debian's (`apt-get install -y chromium`), driven by playwright; a missing chromium fails the
test, it is never skipped.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from graphforge.cli.browser import SLIDES, browser_query, guide_examples, render_guide
from graphforge.cli.main import main
from graphforge.demo.sample.comparisons import SAMPLE_ANCHOR
from graphforge.graphdb import cypher
from graphforge.graphdb.graph import Graph
from graphforge.settings import GraphforgeSettings

pytestmark = [pytest.mark.neo4j, pytest.mark.slow]
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def demo(monkeypatch: pytest.MonkeyPatch, settings: GraphforgeSettings, graph: Graph, tmp_path: Path,
         capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    monkeypatch.setenv("GRAPHFORGE_HOME", str(settings.home))
    monkeypatch.setenv("GRAPHFORGE_BOLT_PORT", str(settings.bolt_port))
    monkeypatch.setenv("GRAPHFORGE_HTTP_PORT", str(settings.http_port))
    monkeypatch.delenv("NEO4J_URI", raising=False)
    # The test server's graph whatever project an earlier test made current (`project use` writes state).
    monkeypatch.setenv("GRAPHFORGE_PROJECT", "default")
    monkeypatch.chdir(tmp_path)
    # Into the test server's graph (the project "default"), which the checks below read.
    assert main(["demo", "--out", str(tmp_path / "demo"), "--project", "default", "--json"]) == 0
    result: dict[str, Any] = json.loads(capsys.readouterr().out)
    return result


def _run(graph: Graph, name: str, **params: Any) -> list[dict[str, Any]]:
    text = browser_query(name)
    query = cypher.CypherQuery(f"browser/{name}", text, cypher.parameters_of(text))
    assert set(query.params) == set(params), name
    return graph.read_dicts(query, **params)


def test_guide_reports_and_rendering_on_the_demo_graph(demo: dict[str, Any], graph: Graph, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    # 0. `list specs --json` gives the ids of the specs the demo compiled, all of them and only those.
    assert main(["list", "specs", "--json"]) == 0
    listed = [row["spec_id"] for row in json.loads(capsys.readouterr().out)["specs"]]
    assert demo["spec_ids"] and sorted(listed) == sorted(demo["spec_ids"])
    # An Elo fit stored in the graph, for the ratings slide: an older one and the latest.
    fits = []
    for seed in (3, 4):
        sample = tmp_path / f"comparisons-{seed}.jsonl"
        assert main(["eval", "sample", str(sample), "--seed", str(seed), "--json"]) == 0
        capsys.readouterr()
        assert main(["eval", "elo", str(sample), "--anchor", f"{SAMPLE_ANCHOR}=1667", "--bootstrap", "50",
                     "--out", str(tmp_path / f"elo-{seed}"), "--store", "--json"]) == 0
        fits.append(json.loads(capsys.readouterr().out))
    assert fits[0]["run_id"] != fits[1]["run_id"]
    # 1. The guide's ids are real ids of this graph, and every slide's query returns something with them.
    examples = guide_examples(graph)
    for key in ("seed_id", "soc_code", "spec_id", "criterion_id", "trajectory_id", "rating_run_id"):
        assert examples[key], key
    assert examples["rating_run_id"] == fits[1]["run_id"]  # the latest fit
    assert examples["spec_id"] in demo["spec_ids"]
    for slide in SLIDES:
        rows = _run(graph, slide.query, **({slide.param: examples[slide.param]} if slide.param else {}))
        assert rows, f"{slide.query} returns nothing for {examples.get(slide.param or '')!r}"
    chain = _run(graph, "criterion_anchors", criterion_id=examples["criterion_id"])
    assert all(row["chain"] for row in chain) and len(chain) >= 1
    failed = _run(graph, "trajectory_failure", trajectory_id=examples["trajectory_id"])
    assert failed[0]["status"] in ("rejected", "discarded", "failed") and failed[0]["status_reason"]
    # The ratings slide: that fit's players best first, each Elo with its CI as the fit computed it.
    ratings = _run(graph, "ratings", rating_run_id=fits[0]["run_id"])
    expected = fits[0]["elo"]["ratings"]
    assert [r["player"] for r in ratings] == [e["model"] for e in expected] and len(expected) >= 3
    for row, fit in zip(ratings, expected, strict=True):
        low, high = (float(v) for v in str(row["ci"]).strip("[]").split(", "))
        for shown, exact in ((row["elo"], fit["elo"]), (low, fit["ci_low"]), (high, fit["ci_high"])):
            assert abs(shown - exact) <= 0.051, (row, fit)
    guide = render_guide(examples, "http://localhost:1/graphforge.grass")
    assert guide.count("<slide") == len(SLIDES) + 2 and examples["criterion_id"] in guide
    assert "ratings" in [s.query for s in SLIDES]
    ratings_slide = next(s for s in guide.split("<slide")[1:] if "<h3>Elo ratings</h3>" in s)
    assert f':param rating_run_id =&gt; &quot;{examples["rating_run_id"]}&quot;' in ratings_slide
    assert "$rating_run_id" in ratings_slide and "ci_low" in ratings_slide

    # 2. One definition of sector and cell: the coverage and corpus reports agree on the totals.
    coverage = json.loads((Path(demo["reports"]["coverage"]).parent / "coverage.json").read_text())
    corpus = json.loads((Path(demo["reports"]["corpus"]).parent / "corpus_report.json").read_text())
    assert corpus["sectors_total"] == len(coverage["sectors"])
    assert corpus["patterns_total"] == len(coverage["patterns"])
    assert corpus["cells_possible"] == coverage["cells_total"] == len(coverage["sectors"]) * len(
        coverage["patterns"])
    sector_names = set(coverage["sectors"])
    assert {s["name"] for s in corpus["by_sector"]} <= sector_names | {"(unlinked)"}  # names, not codes
    assert not any(name.startswith("soc-") for name in sector_names)

    # 3. Every report and the guide's anchor chain render in headless Chromium without console errors.
    spec = importlib.util.spec_from_file_location("screenshots", REPO / "scripts" / "screenshots.py")
    assert spec is not None and spec.loader is not None
    screenshots = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(screenshots)
    # Every HTML report the demo writes (coverage, corpus, audit, Elo, win rate, sensitivity, ...).
    folders = {Path(p).parent if p.endswith(".html") else Path(p) for p in demo["reports"].values()}
    reports = sorted({html for folder in folders for html in folder.rglob("*.html")})
    names = {r.name for r in reports}
    assert {"coverage.html", "corpus_report.html", "elo.html", "winrate.html"} <= names, names
    shots = tmp_path / "shots"
    assert screenshots.main(["--out", str(shots)] + [str(r) for r in reports]) == 0
    for name in ("report_coverage.png", "report_corpus_report.png", "browser_guide.png",
                 "browser_anchor_chain.png"):
        png = shots / name
        assert png.is_file() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name

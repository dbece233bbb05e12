"""Screenshots (PNG) of the HTML reports and the Browser guide's anchor-chain graph, with headless Chromium.

Usage (after `graphforge demo`, with the same GRAPHFORGE_* / NEO4J_* settings):

    .venv/bin/python scripts/screenshots.py --out out/screenshots out/demo/reports/coverage/coverage.html ...

Drives Debian's chromium (apt-get install chromium) through playwright; never downloads a browser. Exits 1
when a page logs a console error, when the guide or style cannot be loaded, or when the anchor-chain query
draws no graph. Prints one line per screenshot: path and what it shows.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

CHROMIUM_CANDIDATES = ("chromium", "chromium-browser", "google-chrome")


def find_chromium(explicit: str | None) -> str:
    for name in ([explicit] if explicit else []) + list(CHROMIUM_CANDIDATES):
        path = shutil.which(name) if name else None
        if path:
            return path
    raise SystemExit("error: no chromium found; install it (apt-get install -y chromium) or pass --chromium")


def shoot_reports(page: Any, reports: list[Path], out: Path, errors: list[str]) -> list[tuple[Path, str]]:
    """Open each report as a file:// page, check it loads without console errors, screenshot it whole."""
    shots = []
    for report in reports:
        before = len(errors)
        page.goto(report.resolve().as_uri())
        page.wait_for_load_state("load")
        broken = page.evaluate("Array.from(document.images).filter(i => !i.complete || i.naturalWidth === 0)"
                               ".length")
        if broken:
            errors.append(f"{report}: {broken} image(s) did not load")
        path = out / f"report_{report.stem}.png"
        page.screenshot(path=str(path), full_page=True)
        title = page.title()
        shots.append((path, f"report '{title}' ({report.name}), whole page"))
        if len(errors) > before:
            print(f"console errors on {report}: {errors[before:]}", file=sys.stderr)
    return shots


def run_in_browser(page: Any, command: str, wait_ms: int = 2500) -> None:
    """Put a command in Neo4j Browser's editor (as text, no auto-closing) and run it."""
    editor = page.locator('[data-testid="activeEditor"] .monaco-editor').first
    editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(command)
    page.locator('[data-testid="editor-Run"]').first.click()
    page.wait_for_timeout(wait_ms)


def drawn_captions(frame: Any) -> list[str]:
    """The caption Browser drew in each node of a graph frame (its text lines joined)."""
    nodes = frame.locator("svg g.node")
    return [" ".join(t.strip() for t in nodes.nth(i).locator("text").all_text_contents() if t.strip())
            for i in range(nodes.count())]


def shoot_guide(page: Any, out: Path, errors: list[str], criterion_id: str | None = None,
                name: str = "browser_anchor_chain") -> list[tuple[Path, str]]:
    """Log in to Neo4j Browser, play the guide, apply the style from its button (the guide stays) and draw
    a criterion's anchor chain (the guide's example, or ``criterion_id``)."""
    from graphforge.cli.browser import (
        GUIDE_FILE,
        browser_query,
        guide_examples,
        param_command,
        serve_guide,
        write_guide,
    )
    from graphforge.context import open_context
    from graphforge.graphdb import server
    from graphforge.graphdb.captions import set_captions
    from graphforge.settings import GraphforgeSettings

    settings = GraphforgeSettings()
    info = server.resolve(settings, start=False)
    if not info.browser_url:
        raise SystemExit("error: the guide screenshot needs the project-managed Neo4j (it serves Browser)")
    with open_context(settings) as ctx:
        set_captions(ctx.graph)
        examples = guide_examples(ctx.graph)
    if criterion_id:
        examples["criterion_id"] = criterion_id
    if not examples.get("criterion_id"):
        raise SystemExit("error: the graph has no anchored criterion yet; run `graphforge demo` first")
    folder = Path(tempfile.mkdtemp(prefix="graphforge-guide-"))
    httpd = serve_guide(folder, settings.listen_address)
    base = f"http://localhost:{httpd.server_address[1]}"
    write_guide(folder, examples, base)
    shots = []
    try:
        page.goto(f"{info.browser_url}?dbms=" + info.uri.replace("bolt://", "bolt://neo4j@", 1))
        page.locator('[data-testid="password"]').fill(info.password)
        page.locator('[data-testid="connect"]').click()
        page.locator('[data-testid="activeEditor"]').wait_for(timeout=30_000)
        page.wait_for_timeout(2000)
        run_in_browser(page, f":play {base}/{GUIDE_FILE}", wait_ms=3000)
        # The guide's frame by its text, not by position: a late frame (the connection's) may sit above it.
        frames = page.locator('[data-testid="frame"]')
        guide = frames.filter(has_text="Apply the GraphForge style").first
        play = guide.locator('[data-populate^=":style"] i.fa-play-circle-o').first
        try:
            play.wait_for(timeout=60_000)
        except Exception:  # noqa: BLE001 (playwright's timeout: reported with what Browser shows instead)
            shown = " || ".join(frames.nth(i).inner_text()[:200] for i in range(frames.count()))
            page.screenshot(path=str(out / "browser_guide_failed.png"))
            errors.append(f"the guide did not load in Browser (no style button); its frames: {shown!r}")
            return shots
        # The button's play icon runs the style in a frame of its own, above the guide.
        play.click()
        page.wait_for_timeout(2000)
        frames = page.locator('[data-testid="frame"]')
        if not any("Apply the GraphForge style" in frames.nth(i).inner_text() for i in range(frames.count())):
            errors.append("applying the style replaced the guide")
        path = out / "browser_guide.png"
        page.screenshot(path=str(path))
        shots.append((path, "Neo4j Browser: the :style frame on top, the GraphForge guide still below it"))
        run_in_browser(page, param_command("criterion_id", examples["criterion_id"]))
        run_in_browser(page, browser_query("criterion_anchors"), wait_ms=6000)
        frame = page.locator('[data-testid="frame"]').first
        nodes = frame.locator("svg g.node").count()
        if nodes == 0:
            errors.append("the anchor-chain query drew no graph: " + frame.inner_text()[:300])
        captions = drawn_captions(frame)
        # Fullscreen, so the graph has room; Browser lays it out again, then the screenshot.
        frame.locator('button[title="Fullscreen"]').first.click()
        page.wait_for_timeout(3000)
        page.locator('[aria-label="zoom-to-fit"]').first.click()
        page.wait_for_timeout(1500)
        path = out / f"{name}.png"
        page.screenshot(path=str(path))
        shots.append((path, f"criterion {examples['criterion_id']}: its anchor chain spec -> criterion -> "
                            f"facts -> spans -> files <- workspace drawn as a graph ({nodes} nodes), "
                            f"GraphForge style applied; captions: {' | '.join(captions)}"))
    finally:
        httpd.shutdown()
        httpd.server_close()
        shutil.rmtree(folder, ignore_errors=True)
    return shots


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="*", type=Path, help="HTML reports to screenshot")
    parser.add_argument("--out", type=Path, default=Path("out/screenshots"))
    parser.add_argument("--chromium", default=None, help="Chromium binary (default: the one on PATH)")
    parser.add_argument("--no-guide", action="store_true", help="Only the reports (no Neo4j needed)")
    parser.add_argument("--criterion", default=None, help="Draw this criterion's anchor chain (default: the "
                                                          "guide's example)")
    parser.add_argument("--name", default="browser_anchor_chain", help="File name of the chain screenshot")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=find_chromium(args.chromium), headless=True,
                                     args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1600, "height": 1100})
        page.on("console",
                lambda m: errors.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
        shots = shoot_reports(page, args.reports, args.out, errors)
        report_errors = list(errors)
        if not args.no_guide:
            shots += shoot_guide(page, args.out, errors, args.criterion, args.name)
        browser.close()
    for path, what in shots:
        print(f"{path}\t{what}")
    if report_errors:
        print("error: " + "; ".join(report_errors), file=sys.stderr)
        return 1
    guide_errors = [e for e in errors[len(report_errors):] if "console" not in e or "favicon" not in e]
    if guide_errors and any("anchor-chain" in e or "guide did not load" in e for e in guide_errors):
        print("error: " + "; ".join(guide_errors), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""`graphforge browser`'s link makes the managed Neo4j Browser play the guide by itself, and one click on
the play icon of the guide's "Apply the GraphForge style" button applies the shipped style in a frame of
its own, the guide staying where it was: a File is then drawn in the style's colour and captioned with
its name. Real Neo4j Browser (served by the managed server) in Debian's headless chromium, driven by
playwright; a missing chromium fails the test, it is never skipped.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from graphforge.cli.browser import (
    GUIDE_FILE,
    browser_link,
    guide_examples,
    render_guide,
    serve_guide,
    style_command,
    write_guide,
)
from graphforge.context import StageContext
from graphforge.graphdb import server
from graphforge.graphdb.captions import set_captions
from graphforge.graphdb.graph import Graph
from graphforge.settings import GraphforgeSettings
from graphforge.stages import load_workspace

pytestmark = [pytest.mark.neo4j, pytest.mark.slow]
REPO = Path(__file__).resolve().parents[2]
FILE_COLOUR = re.search(r"node\.File \{[^}]*?color: (#[0-9A-Fa-f]{6});", style_command()).group(1)  # type: ignore[union-attr]


def _run_in_editor(page: Any, command: str, wait_ms: int = 2500) -> None:
    """The screenshot script's way of running a command in Browser's editor (one copy of the selectors)."""
    spec = importlib.util.spec_from_file_location("screenshots", REPO / "scripts" / "screenshots.py")
    assert spec is not None and spec.loader is not None
    screenshots = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(screenshots)
    screenshots.run_in_browser(page, command, wait_ms)


def _hex(css_colour: str) -> str:
    """'rgb(69, 179, 157)' -> '#45B39D' (a computed SVG fill)."""
    channels = re.fullmatch(r"rgba?\((\d+), (\d+), (\d+)(?:, [\d.]+)?\)", css_colour.strip())
    assert channels, css_colour
    return "#" + "".join(f"{int(c):02X}" for c in channels.groups())


def _file_nodes(page: Any) -> list[tuple[str, str]]:
    """(fill colour, caption) of each node drawn by `MATCH (f:File) RETURN f` in a fresh frame."""
    _run_in_editor(page, "MATCH (f:File) RETURN f", wait_ms=4000)
    frame = page.locator('[data-testid="frame"]').first
    nodes = frame.locator("svg g.node")
    out = []
    for i in range(nodes.count()):
        node = nodes.nth(i)
        fill = node.evaluate("n => Array.from(n.querySelectorAll('circle'))"  # the filled one, not the ring
                             ".map(c => getComputedStyle(c).fill).find(f => f && f !== 'none') || 'none'")
        caption = " ".join(t.strip() for t in node.locator("text").all_text_contents() if t.strip())
        out.append((_hex(fill), caption))
    return out


def test_guide_plays_from_the_link_and_one_click_applies_the_style(
        ctx: StageContext, graph: Graph, settings: GraphforgeSettings, neo4j_info: server.ServerInfo,
        tmp_path: Path) -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    assert chromium, "chromium is needed (apt-get install -y chromium)"
    assert neo4j_info.browser_url, "the test needs the project-managed Neo4j (it serves Browser)"
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "orders.csv").write_text("region,total\nNorth,12\nSouth,30\n", encoding="utf-8")
    load_workspace.run(ctx, load_workspace.LoadWorkspaceParams(root=workspace, workspace_id="ws-style",
                                                               jobs=1, use_llm_roles=False))

    # Without a server the guide still carries the style: the button and the last slide's block.
    offline = render_guide(guide_examples(graph), None)
    assert offline.count('data-populate=":style') == 2 and "node.File" in offline.split("<slide")[-1]

    folder = tmp_path / "guide"
    httpd = serve_guide(folder, settings.listen_address)
    base = f"http://localhost:{httpd.server_address[1]}"
    write_guide(folder, guide_examples(graph), base)
    from playwright.sync_api import sync_playwright

    errors: list[str] = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, headless=True, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(browser_link(neo4j_info.browser_url, neo4j_info.uri, f"{base}/{GUIDE_FILE}"))
            page.locator('[data-testid="password"]').fill(neo4j_info.password or "")
            page.locator('[data-testid="connect"]').click()
            page.locator('[data-testid="activeEditor"]').wait_for(timeout=60_000)
            page.get_by_text("Connected to Neo4j").first.wait_for(timeout=60_000)
            page.wait_for_timeout(3000)
            # The link played the guide: nobody typed :play.
            button = page.locator('[data-populate^=":style"]').first
            button.wait_for(timeout=30_000)
            assert "Apply the GraphForge style" in button.inner_text()

            before = _file_nodes(page)
            assert before and all(fill != FILE_COLOUR.upper() for fill, _ in before), before
            button.locator("i.fa-play-circle-o").click()
            page.wait_for_timeout(2000)
            # The guide is still playing in its frame (the style ran in a new one).
            frames = page.locator('[data-testid="frame"]')
            texts = [frames.nth(i).inner_text() for i in range(frames.count())]
            assert any("Apply the GraphForge style" in t for t in texts), [t[:80] for t in texts]
            assert texts[0].lstrip().startswith(":style"), texts[0][:80]
            set_captions(graph)
            after = _file_nodes(page)
            assert after == [(FILE_COLOUR.upper(), "orders.csv")], after
            browser.close()
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert not errors, errors

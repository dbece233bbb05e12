"""`graphforge browser`: Neo4j Browser with a GraphForge guide (`:play`) and a GraSS style.

The guide is an HTML slide deck in Neo4j Browser's guide format, built from the saved queries in
cypher/browser/ with real ids of the current graph filled into `:param` blocks. It is written to a
folder (the "local file") and served from 127.0.0.1 by a small HTTP server with the CORS headers
Browser's cross-origin fetch needs, under the host name ``localhost``, which Neo4j Browser's default
``browser.remote_content_hostname_allowlist`` (guides.neo4j.com,localhost) already allows.
"""

from __future__ import annotations

import html
import json
import threading
import urllib.parse
import webbrowser
from dataclasses import dataclass
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Annotated, Any

import typer

from graphforge.cli.common import JsonOption, console, emit, print_fields, say
from graphforge.graphdb import cypher
from graphforge.graphdb.captions import set_captions
from graphforge.graphdb.graph import Graph

GET_GUIDE_EXAMPLES = cypher.load("guide/get_guide_examples")
BROWSER_DIR = cypher.CYPHER_DIR / "browser"
GUIDE_FILE = "graphforge.html"
STYLE_FILE = "graphforge.grass"


@dataclass(frozen=True)
class Slide:
    title: str
    lead: str
    query: str  # file name under cypher/browser/ (without .cypher)
    param: str | None  # the $parameter the query needs, filled from the graph's examples
    shows: str  # what to look at in the result
    missing: str = "run the pipeline further (see the README)"  # how to get an example when none exists


SLIDES = [
    Slide("Coverage gaps", "Sector x execution-pattern cells without a selected seed, and how many pool "
          "candidates could fill each. Cells with no candidates need new seeds or data.", "coverage_gaps",
          None, "a table, largest fillable gaps first"),
    Slide("A seed's context", "Everything a seed stands on: occupation and sector, the O*NET task, its task "
          "type up the DWA -> IWA -> GWA ladder, pattern, input family, cited evidence and workspace.",
          "seed_context", "seed_id", "a graph around one orange Seed"),
    Slide("An occupation's tasks, task types and seeds", "The occupation's O*NET tasks, the DWAs (task "
          "types) each belongs to, and the seeds built from them.", "occupation_tasks_dwas_seeds",
          "soc_code", "a graph: blue occupation and tasks, light-blue DWAs, orange seeds"),
    Slide("A criterion's anchor chain", "How a rubric criterion is anchored: spec -> criterion -> fact -> "
          "span -> file, and the workspace that holds the file (the edge shows its path). Click a node "
          "to read all its properties (a fact's statement, a span's text) in the panel on the right.",
          "criterion_anchors", "criterion_id",
          "a force-directed graph (Browser places the nodes by their links, in no fixed order): the dark "
          "red spec joined to its pink criterion, which points to its yellow facts; each fact to its "
          "light-green span, each span to the green file that holds it, and the file to the dark-green "
          "workspace, plus the deliverable the criterion targets"),
    Slide("A spec's lineage", "Where a spec comes from: its workspace and seed, every file, span and fact "
          "its criteria are anchored to, and the specs it revises.", "lineage", "spec_id",
          "a graph around one red TaskSpec"),
    Slide("Task families per workspace", "The task families whose Cypher pattern (cypher/families/) matches "
          "each workspace's evidence graph, and the specs compiled for each with why that family was "
          "chosen for the seed.", "workspace_families", None, "a table, one row per workspace"),
    Slide("Why a trajectory failed", "The trajectory's status and its reason, then each criterion it lost, "
          "with the judge's score and evidence.", "trajectory_failure", "trajectory_id",
          "a table, one row per lost criterion"),
    Slide("The admission funnel", "Trajectories by status, how many were judged and how many passed the Q "
          "threshold, with example reasons.", "admission_funnel", None, "a table"),
    Slide("Elo ratings", "One stored Bradley-Terry fit: each player's Elo with its bootstrap confidence "
          "interval, rank and win/loss/tie record, the anchor player held at its rating, and how many "
          "comparisons and resamples it rests on.", "ratings", "rating_run_id",
          "a table, best player first", missing="store a fit with <code>graphforge eval elo FILE --anchor "
          "NAME=1667 --store</code> (see the README's Evaluation section)"),
]


def browser_query(name: str) -> str:
    """The text of a saved Browser query (cypher/browser/<name>.cypher)."""
    return (BROWSER_DIR / f"{name}.cypher").read_text(encoding="utf-8")


def guide_examples(graph: Graph) -> dict[str, Any]:
    """Real ids from the current graph for the guide's `:param` blocks (None where the graph has none)."""
    rows = graph.read_dicts(GET_GUIDE_EXAMPLES)
    return dict(rows[0]) if rows else {}


def param_command(name: str, value: object) -> str:
    """A Browser `:param` command; JSON string quoting is valid Cypher string-literal quoting."""
    return f":param {name} => {json.dumps(value, ensure_ascii=False)}"


def style_text() -> str:
    """The shipped GraSS style (cypher/browser/graphforge.grass)."""
    return (BROWSER_DIR / STYLE_FILE).read_text(encoding="utf-8")


def style_command(style_url: str | None = None) -> str:
    """`:style URL` (Browser fetches the file: the host must be in its remote-content allowlist) or, with
    no URL, `:style` followed by the GraSS itself, which Browser applies as is (nothing to host)."""
    return f":style {style_url}" if style_url else f":style\n{style_text().strip()}"


def render_guide(examples: dict[str, Any], style_url: str | None) -> str:
    """The guide as HTML in Neo4j Browser's slide format (runnable <pre> blocks).

    The first slide's "Apply the GraphForge style" button carries `:style <GraSS>` (an inline style: Browser
    fetches nothing). Browser puts a play icon on it that runs the command in a new frame above the guide
    on one click; a click on its words puts the command in the editor. (A ``data-exec`` button would run it
    in the guide's own frame, replacing the guide.) Browser runs nothing from a guide without a click. The
    last slide holds the same command as a block to read or copy; with a served style, the first slide also
    offers `:style URL`.
    """

    def runnable(text: str) -> str:
        return f'<pre class="pre-scrollable code runnable">{html.escape(text.strip())}</pre>'

    slides = []
    # data-populate, not data-exec: Browser runs a clicked data-exec command in the guide's own frame, so the
    # style's output replaced the guide. Browser puts a play icon before the button that runs the command in
    # a new frame above; a click on the words puts it in the editor, to run from there (a new frame too).
    apply_style = (f'<p><a class="btn btn-cta" data-populate="{html.escape(style_command(), quote=True)}">'
                   "Apply the GraphForge style</a> &larr; click the &#9654; icon on the button once per "
                   "browser (the style opens in its own frame above; this guide stays), or click its words "
                   "and run it from the editor. A colour per label, and on each node a short caption: a "
                   "file's name shortened from the middle, a spec's family and version, a criterion's "
                   "number, kind and first words, a span's locator, a fact's metric and value.</p>")
    intro = ["<h3>GraphForge</h3>",
             '<p class="lead">The pipeline in one graph: O*NET taxonomy, seeds, workspaces, evidence, '
             "specs, trajectories, judgments.</p>", apply_style,
             "<p>Click a grey block to put it in the editor, then run it (Ctrl/Cmd + Enter). On slides with "
             "a parameter, run the <code>:param</code> block first: it holds a real id from this graph, "
             "chosen when <code>graphforge browser</code> wrote this guide. Other ids: "
             "<code>graphforge list specs|seeds|trajectories</code>.</p>",
             "<p>Graph results are drawn force-directed: Browser places the nodes by their links, not in a "
             "fixed order, so a chain may run in any direction; drag a node to move it, double-click it "
             "to show its neighbours.</p>"]
    if style_url:
        intro += ["<p>The same style, loaded from the guide server:</p>", runnable(style_command(style_url))]
    slides.append("".join(intro))
    for slide in SLIDES:
        parts = [f"<h3>{html.escape(slide.title)}</h3>", f'<p class="lead">{html.escape(slide.lead)}</p>']
        if slide.param is not None:
            value = examples.get(slide.param)
            if value is None:
                parts.append(f"<p><em>This graph has no example for <code>{slide.param}</code> yet: "
                             f"{slide.missing}, then run <code>graphforge browser</code> again.</em></p>")
            else:
                parts.append(runnable(param_command(slide.param, value)))
        parts.append(runnable(browser_query(slide.query)))
        parts.append(f"<p>Shows: {html.escape(slide.shows)}. Saved as "
                     f"<code>cypher/browser/{slide.query}.cypher</code>.</p>")
        slides.append("".join(parts))
    slides.append("".join([
        "<h3>The GraphForge style</h3>",
        '<p class="lead">Colours per label and readable captions, as shipped in '
        "<code>cypher/browser/graphforge.grass</code>. The first slide's button runs this block; "
        "<code>:style reset</code> returns to Browser's default.</p>", apply_style,
        runnable(style_command())]))
    body = "\n".join(f'<slide class="row-fluid"><div class="col-sm-12">{s}</div></slide>' for s in slides)
    return ('<article class="guide"><carousel class="deck container-fluid">\n'
            f"{body}\n</carousel></article>\n")


def write_guide(out_dir: Path, examples: dict[str, Any], base_url: str | None) -> dict[str, Path]:
    """Write graphforge.html (the guide) and graphforge.grass (the style) into out_dir."""
    out_dir.mkdir(parents=True, exist_ok=True)
    style_url = f"{base_url}/{STYLE_FILE}" if base_url else None
    guide = out_dir / GUIDE_FILE
    guide.write_text(render_guide(examples, style_url), encoding="utf-8")
    style = out_dir / STYLE_FILE
    style.write_text(style_text(), encoding="utf-8")
    return {"guide": guide, "style": style}


class _GuideHandler(SimpleHTTPRequestHandler):
    """Static files with the CORS headers Neo4j Browser's cross-origin guide and style fetches need."""

    def end_headers(self) -> None:
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Access-Control-Allow-Headers", "*")
        self.send_header("Access-Control-Allow-Methods", "GET, OPTIONS")
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def do_OPTIONS(self) -> None:  # noqa: N802 (http.server's naming)
        self.send_response(204)
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        return  # quiet: the command prints what matters


def serve_guide(folder: Path, host: str, port: int = 0) -> ThreadingHTTPServer:
    """Serve folder on host:port (0: a free port) in a daemon thread; stop: shutdown(), server_close()."""
    folder.mkdir(parents=True, exist_ok=True)
    handler = partial(_GuideHandler, directory=str(folder))
    try:
        httpd = ThreadingHTTPServer((host, port), handler)
    except OSError as exc:
        from graphforge.errors import ConfigError

        raise ConfigError(f"--port: cannot serve the guide on {host}:{port}: {exc.strerror}") from exc
    threading.Thread(target=httpd.serve_forever, daemon=True, name="graphforge-guide").start()
    return httpd


def browser_link(browser_url: str, bolt_uri: str, play_url: str) -> str:
    """Browser URL that pre-fills the connection and plays the guide (Browser runs `:play <url>` itself)."""
    query = urllib.parse.urlencode({"dbms": bolt_uri.replace("bolt://", "bolt://neo4j@", 1), "cmd": "play",
                                    "arg": play_url})
    return f"{browser_url.rstrip('/')}/?{query}"


def _browser_summary(result: dict[str, Any], title: str) -> None:
    """The guide's files and connection as fields, then each URL and command alone on its line (printed
    as is, never wrapped by the console, so it can be copied whole)."""
    fields = [(key.replace("_", " "), str(result[key])) for key in ("browser_url", "bolt_uri", "user",
                                                                     "guide_file", "style_file")]
    print_fields(title, fields)
    if result["play"]:
        say("Open (logs in and plays the guide):")
        say(str(result["open"]))
        say("or in Browser run:")
        say(str(result["play"]))
    else:
        say("Open Neo4j Browser:")
        say(str(result["browser_url"]))


def browser_cmd(
    port: Annotated[int | None, typer.Option(
        "--port", min=1, max=65535, help="Port of the guide server (default: a free one).")]
    = None,
    out: Annotated[Path, typer.Option("--out", help="Folder for graphforge.html and graphforge.grass.")]
    = Path("out/browser"),
    no_open: Annotated[bool, typer.Option("--no-open", help="Print the URL; do not open a web browser.")]
    = False,
    no_serve: Annotated[bool, typer.Option("--no-serve", help="Write the guide and style files and exit "
                                                              "(host them yourself).")] = False,
    as_json: JsonOption = False,
) -> None:
    """Open Neo4j Browser with the GraphForge guide (:play) and style (:style); serves them until Ctrl-C."""
    from graphforge.context import open_context
    from graphforge.graphdb import server
    from graphforge.settings import GraphforgeSettings

    settings = GraphforgeSettings()
    with open_context(settings) as ctx:
        set_captions(ctx.graph)  # the style shows each node's caption: refresh them for what was added
        examples = guide_examples(ctx.graph)
    httpd = None if no_serve else serve_guide(out, settings.listen_address, port or 0)
    base_url = None if httpd is None else f"http://localhost:{httpd.server_address[1]}"
    files = write_guide(out, examples, base_url)
    info = server.resolve(settings, start=False)
    browser_url = info.browser_url or "http://<your Neo4j host>:7474/browser/"
    play = f"{base_url}/{GUIDE_FILE}" if base_url else str(files["guide"].resolve())
    result: dict[str, Any] = {
        "browser_url": browser_url, "bolt_uri": info.uri, "user": info.user,
        "open": browser_link(browser_url, info.uri, play) if base_url else browser_url,
        "play": f":play {play}" if base_url else None,
        "style": f":style {base_url}/{STYLE_FILE}" if base_url else None,
        "apply_style": "click the play icon of 'Apply the GraphForge style' on the guide's first slide "
                       "(once per browser; it runs :style with the GraSS inline in a frame of its own)",
        "guide_file": str(files["guide"]), "style_file": str(files["style"]), "examples": examples,
    }
    if httpd is None:
        emit(result, as_json, summary=lambda r: _browser_summary(r, "Neo4j Browser guide written"))
        if not as_json:
            console.print("Host graphforge.html on a host in Browser's "
                          "browser.remote_content_hostname_allowlist and run `:play <its URL>`; then "
                          "click the play icon of 'Apply the GraphForge style' on the first "
                          "slide (or run the :style block on the last slide).")
        return
    try:
        emit(result, as_json, summary=lambda r: _browser_summary(r, "Neo4j Browser guide"))
        if not as_json:
            console.print("Log in as neo4j (password: `graphforge db status --show-password`); Browser then "
                          "plays the guide by itself. Click the play icon of 'Apply the GraphForge style' on "
                          "its first slide once (Browser runs no command from a guide without a click). "
                          "Ctrl-C stops the guide server.")
        if not no_open:
            webbrowser.open(str(result["open"]))
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        httpd.shutdown()
        httpd.server_close()

"""`graphforge demo`: the whole pipeline on the bundled sample, end to end (registered by cli.main)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from graphforge.cli.common import JsonOption, console, emit, say, stdout


def demo_cmd(out: Annotated[Path, typer.Option("--out", help="Where sample data, exports and reports go.")]
             = Path("out/demo"),
             project: Annotated[str, typer.Option(
                 "--project", help="The project whose graph the demo writes, created when missing. The "
                                   "default keeps the demo out of your own graphs; 'default' is the graph "
                                   "used without a project (NEO4J_URI or <home>/neo4j).")] = "demo",
             as_json: JsonOption = False) -> None:
    """Run every stage on the bundled sample in its own project "demo" (starting that project's Neo4j)."""
    from graphforge.demo.run import DemoResult, run_demo
    from graphforge.settings import project_settings

    settings = project_settings(project, create=True)
    # Commands the summary suggests run in the user's current project unless told otherwise.
    in_project = "" if settings.project_name == _current_project() else f"GRAPHFORGE_PROJECT={project} "
    say(f"demo project: {settings.project_name} (switch to it with `graphforge project use "
        f"{settings.project_name}`, or prefix a command with GRAPHFORGE_PROJECT={settings.project_name})",
        console)
    result = run_demo(settings, out_dir=out)

    def summary(r: DemoResult) -> None:
        stdout.print(f"\n[bold green]GraphForge demo finished[/] in project [bold]{r.project}[/] — "
                     f"Neo4j {r.neo4j_version}")
        say(f"  Bolt: {r.bolt_uri}")
        if in_project:
            say(f"  your current project is unchanged; `graphforge project use {r.project}` switches to the "
                f"demo's, or prefix one command with {in_project.strip()}")
        stdout.print(
            f"graph: {r.nodes} nodes, {r.relationships} relationships; specs: {', '.join(r.spec_ids)}"
        )
        stdout.print(f"admission funnel: {r.funnel}")
        stdout.print(f"contamination audit {r.audit_id}: overlaps found = {r.audit_found_overlaps}")
        if r.sensitivity_llm is None:
            stdout.print("\n[bold]Judge sensitivity[/]\n" + r.sensitivity)
        else:
            stdout.print("\n[bold]Judge sensitivity: deterministic verifiers[/]\n" + r.sensitivity)
            stdout.print("\n[bold]Judge sensitivity: anchored chat-model judge (one trajectory)[/]\n"
                         + r.sensitivity_llm)
        stdout.print("\n[bold]Elo (top 5)[/]\n  " + "\n  ".join(r.elo_top))
        stdout.print("\n[bold]Where to look[/]")
        # Each URL and path whole on its line (the console never wraps them; copying gives them whole).
        say(f"  the graph in Neo4j Browser, with the GraphForge guide (anchor chain, lineage, Elo "
            f"ratings) and style: `{in_project}graphforge browser`")
        if r.browser_url:
            say(f"  Neo4j Browser: {r.browser_url}  (user neo4j; password: "
                f"`{in_project}graphforge db status --show-password`)")
        say("  saved Browser queries to paste: " + ", ".join(r.browser_queries))
        for name, path in r.reports.items():
            say(f"  report {name}: {path}")
        for name, path in r.exports.items():
            say(f"  export {name}: {path}")

    emit(result, as_json, summary=summary)


def _current_project() -> str | None:
    """The user's current project, or None when the settings cannot say (the demo runs all the same)."""
    from graphforge.errors import ConfigError
    from graphforge.settings import GraphforgeSettings

    try:
        return GraphforgeSettings().project_name
    except ConfigError:
        return None

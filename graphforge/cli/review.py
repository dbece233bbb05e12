"""`graphforge review export|import|status`: human review of task specs in Label Studio."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from graphforge.cli.common import JsonOption, console, emit, print_fields, say, working

UrlOption = Annotated[str | None, typer.Option(
    "--url", envvar="LABEL_STUDIO_URL", help="A running Label Studio (e.g. http://127.0.0.1:8080); "
                                             "env LABEL_STUDIO_URL.")]
TokenOption = Annotated[str | None, typer.Option(
    "--token", envvar="LABEL_STUDIO_API_KEY", show_default=False,
    help="Its API token (Account & Settings); env LABEL_STUDIO_API_KEY.")]
ProjectOption = Annotated[int | None, typer.Option(
    "--project", min=1, help="The Label Studio project's number (in its URL, /projects/N/).")]


def _target(url: str | None, token: str | None, project: int | None, title: str | None = None) -> Any:
    from graphforge.errors import ConfigError
    from graphforge.review.label_studio import LabelStudioTarget

    if not url:
        return None
    if not token:
        raise ConfigError("--token: Label Studio needs an API token (Account & Settings in Label Studio; or "
                          "set LABEL_STUDIO_API_KEY)")
    return LabelStudioTarget(url=url, token=token, title=title, project=project)


def export_cmd(
    out: Annotated[Path, typer.Option("--out", help="Folder for label_config.xml, tasks.json and the "
                                                    "manifest.")] = Path("out/review"),
    spec: Annotated[list[str] | None, typer.Option("--spec", help="Only this spec (repeat for several; "
                                                                  "default: every current spec).")] = None,
    unreviewed_only: Annotated[bool, typer.Option("--unreviewed-only", help="Leave out specs that already "
                                                                            "carry a verdict.")] = False,
    url: UrlOption = None,
    token: TokenOption = None,
    title: Annotated[str | None, typer.Option("--title", help="Title of the Label Studio project created "
                                                              "with --url.")] = None,
    project: ProjectOption = None,
    as_json: JsonOption = False,
) -> None:
    """Export specs for review: a Label Studio project (labeling config + one task per spec, each criterion
    beside its anchored span text); with --url, create it in a running Label Studio."""
    from graphforge.context import open_context
    from graphforge.stages import review_export

    params = review_export.ReviewExportParams(out_dir=out, spec_ids=spec or None,
                                              unreviewed_only=unreviewed_only,
                                              label_studio=_target(url, token, project, title))
    with open_context() as ctx, working("review export"):
        result = review_export.run(ctx, params)

    def summary(r: review_export.ReviewExportResult) -> None:
        print_fields("Review export", [
            ("specs", f"{r.specs} ({r.criteria} criteria, {r.anchors} anchored spans)"
                      + (f"; {r.already_reviewed} already reviewed left out" if r.already_reviewed else "")),
            ("label config", str(Path(r.out_dir) / review_export.CONFIG_FILE)),
            ("tasks", str(Path(r.out_dir) / review_export.TASKS_FILE)),
        ])
        if r.pushed is not None:
            say(f"Label Studio project {r.pushed.project} ({r.pushed.tasks} tasks), review it at:")
            say(r.pushed.project_url)
            say(f"then: graphforge review import --url {r.pushed.url} --project {r.pushed.project}")
        elif r.specs:
            say("In Label Studio: create a project, paste label_config.xml under Labeling Setup > Code, "
                "import tasks.json; or rerun with --url and --token to do it here. Verdicts back: "
                "`graphforge review import FILE` (Export > JSON) or --url/--project.")
        else:
            say("note: no spec to review (`graphforge specs compile` makes them)", console)

    emit(result, as_json, summary=summary)


def import_cmd(
    file: Annotated[Path | None, typer.Argument(help="A JSON export of the review project (Label Studio: "
                                                     "Export > JSON).", exists=True, dir_okay=False)] = None,
    url: UrlOption = None,
    token: TokenOption = None,
    project: ProjectOption = None,
    as_json: JsonOption = False,
) -> None:
    """Import reviewers' verdicts (accept / reject / edited text, reviewer, time) into the graph; admission
    and export then respect them."""
    from graphforge.context import open_context
    from graphforge.stages import review_import

    params = review_import.ReviewImportParams(file=file, label_studio=_target(url, token, project))
    with open_context() as ctx, working("review import"):
        result = review_import.run(ctx, params)

    def summary(r: review_import.ReviewImportResult) -> None:
        def counts(c: dict[str, int]) -> str:
            return ", ".join(f"{n} {k}" for k, n in sorted(c.items())) or "none"

        print_fields("Review import", [
            ("source", r.source),
            ("annotations", f"{r.annotations} read; {r.unannotated_tasks} task(s) not reviewed yet"),
            ("spec verdicts", counts(r.specs)), ("criterion verdicts", counts(r.criteria)),
            ("reviewers", ", ".join(r.reviewers) or "none"),
            ("stored", f"{r.written} verdicts"),
        ])
        for s in r.skipped[:20]:
            say(f"  skipped {s.target_id}: {s.reason}", console)
        for p in r.problems[:20]:
            say(f"  warning: {p}", console)
        if r.written:
            say("Admission (`graphforge admit`) and exports now leave out what was rejected; "
                "`graphforge review status` sums it up.")

    emit(result, as_json, summary=summary)


def status_cmd(as_json: JsonOption = False) -> None:
    """Current specs by review verdict (accepted, rejected, unreviewed) and the criteria verdicts on them."""
    from graphforge.context import open_context
    from graphforge.review.verdicts import review_counts

    with open_context() as ctx:
        rows = review_counts(ctx.graph)
    result = {"verdicts": rows}

    def summary(r: dict[str, Any]) -> None:
        if not r["verdicts"]:
            say("No spec in the graph yet (`graphforge specs compile`).")
            return
        print_fields("Human review of current specs", [
            (str(v["verdict"]), f"{v['specs']} spec(s); criteria: {v['criteria_reviewed']} of "
                                f"{v['criteria']} with a verdict, {v['criteria_rejected']} rejected, "
                                f"{v['criteria_edited']} edited") for v in r["verdicts"]])

    emit(result, as_json, summary=summary)

"""`graphforge status`: what the graph holds per stage and the next command; the stages' idle notes."""

from __future__ import annotations

from graphforge.cli.common import JsonOption, console, emit, print_fields, say, stdout
from graphforge.graphdb.graph import Graph
from graphforge.graphdb.status import GraphStatus


def note_if_idle(graph: Graph, command: str, *, quiet: bool = False) -> str | None:
    """When ``command``'s input is missing from the graph, say so on stderr with what to run first.

    A stage with nothing to work on still exits 0 (nothing to do is normal on a fresh graph), but never
    silently. Returns the note (None when the input is there); ``quiet`` only returns it."""
    from graphforge.graphdb.status import idle_note, read_status

    note = idle_note(read_status(graph), command)
    if note and not quiet:
        say(f"note: {note}", console)
    return note


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def _joined(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {name}" for name, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def status_lines(status: GraphStatus) -> list[tuple[str, str]]:
    """The human form of a GraphStatus: one labelled line per stage."""
    t, s, w, sp = status.taxonomy, status.seeds, status.workspaces, status.specs
    tr, j, ex = status.trajectories, status.judgments, status.exports
    taxonomy = "empty" if not t.tasks else (
        f"{_plural(t.occupations, 'occupation')}, {_plural(t.tasks, 'task')} ({t.digital_tasks} DIGITAL, "
        f"{t.tasks - t.labelled_tasks} unlabelled), {_plural(t.execution_patterns, 'execution pattern')}")
    seeds = "none" if not s.seeds else f"{s.seeds} built, {s.selected} selected"
    workspaces = "none" if not w.workspaces else (
        f"{w.workspaces}: {_plural(w.files, 'file')} ({w.invalid_files} invalid), {_plural(w.spans, 'span')}")
    evidence = "none" if not w.facts else (
        f"{_plural(w.facts, 'fact')}, {_plural(w.fact_links, 'link')}"
        + (f"; {w.without_facts} workspace(s) without facts" if w.without_facts else ""))
    specs = "none" if not sp.specs else (
        f"{sp.current} current" + (f" ({sp.specs} counting earlier versions)" if sp.specs != sp.current
                                   else "")
        + f", {_plural(sp.current_criteria, 'criterion', 'criteria')}"
        + (f"; {sp.current_without_trajectories} without a trajectory" if sp.current_without_trajectories
           else ""))
    trajectories = "none" if not tr.total else f"{tr.total}: {_joined(tr.by_status)}"
    judgments = "none" if not j.total else f"{j.total}: {_joined(j.by_arm)}"
    kinds = [f"{k} {_plural(v.exports, 'export')} ({_plural(v.rows, 'row')})"
             for k, v in sorted(ex.by_kind.items())]
    exports = ", ".join(kinds) or "none"
    exports += f"; {_plural(ex.benchmarks, 'benchmark')}, {_plural(ex.audits, 'audit')}"
    return [("taxonomy", taxonomy), ("seeds", seeds), ("workspaces", workspaces), ("evidence", evidence),
            ("specs", specs), ("trajectories", trajectories), ("judgments", judgments), ("exports", exports)]


def status_cmd(as_json: JsonOption = False) -> None:
    """What the graph holds per stage (taxonomy, seeds, workspaces, facts, specs, trajectories, judgments,
    exports) and the command to run next."""
    from graphforge.context import open_context
    from graphforge.graphdb.status import read_status

    with open_context() as ctx:
        status = read_status(ctx.graph)
        project = ctx.settings.project_name

    def summary(st: GraphStatus) -> None:
        print_fields(f"GraphForge graph of project {project}", status_lines(st))
        first, *rest = st.next
        say("")
        say(f"next: {first.command}", stdout, style="bold")
        print_fields("", [("why", first.why)])
        if rest:
            say("then, or also:")
            for step in rest:
                print_fields("", [("-", f"{step.command}: {step.why}")])

    emit(status, as_json, summary=summary)

"""`graphforge load ...`: read a source with its reader in ``loaders/`` and write it with its stage.

onet, digital and taxonomy-sample (the taxonomy), workspace, trajectories and benchmark.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Annotated

import typer

from graphforge.cli.common import JsonOption, console, emit, progress, stdout, working
from graphforge.cli.seeds import load_note
from loaders.trajectories.formats import AUTO, TRAJECTORY_FORMATS, format_choices


def _positive(value: float | None) -> float | None:
    """A value that must be a number above 0, checked here so the error names the option as typed
    (the stage's own fields are timeout_s and max_file_bytes, which the user never wrote)."""
    if value is not None and not (math.isfinite(value) and value > 0):
        raise typer.BadParameter("must be a number more than 0")
    return value


# Options `load workspace` and `load workspaces` share (one definition, one help text).
JobsOption = Annotated[
    int | None, typer.Option("--jobs", "-j", min=1, help="Parser processes (default: CPUs).")]
TimeoutOption = Annotated[float, typer.Option(
    "--timeout", callback=_positive, help="Per-file parse timeout in seconds.")]
MaxFileMbOption = Annotated[float | None, typer.Option(
    "--max-file-mb", callback=_positive,
    help="Files above this size are recorded invalid without parsing (default 100).")]
RetryInvalidOption = Annotated[
    bool, typer.Option("--retry-invalid", help="Re-parse files an earlier run recorded as invalid.")]
RuleRolesOption = Annotated[bool, typer.Option(
    "--rule-roles", help="Assign missing roles by path rules even when a chat model is configured.")]


def max_file_bytes(max_file_mb: float | None) -> int | None:
    return max(1, int(max_file_mb * 1024 * 1024)) if max_file_mb else None


def load_onet_cmd(
    path: Annotated[Path, typer.Argument(help="Unpacked O*NET release folder (text .txt or .xlsx files).")],
    release: Annotated[
        str | None,
        typer.Option(
            "--release",
            help="Release id, e.g. 29.1 (default: from the folder name db_29_1_text or Read Me.txt).",
        ),
    ] = None,
    sectors: Annotated[
        Path | None,
        typer.Option(
            "--sectors",
            help="Sector mapping CSV/TSV (soc, sector, sub_sector) replacing the 23 SOC 2018 major groups; "
                 "soc may be a prefix (13, 13-2) or a SOC code as the SOC structure writes it (13-2000).",
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Validate every file of an O*NET release, then load it (batched, idempotent)."""
    from graphforge.context import open_context
    from graphforge.stages import load_onet

    params = load_onet.LoadOnetParams(path=path, release_id=release, sectors=sectors)
    with open_context() as ctx:
        # The stage validates every file before the first write: a bad release writes nothing.
        with working("loading the O*NET release"):
            result = load_onet.run(ctx, params)
    emit(result, as_json, "O*NET release loaded")


def load_digital_cmd(
    labels: Annotated[Path | None, typer.Argument(help="DIGITAL labels CSV/TSV (task id -> yes/no).")] = None,
    all_candidates: Annotated[
        bool,
        typer.Option(
            "--all-candidates", help="No labels: treat every task as a DIGITAL candidate (recorded as such)."
        ),
    ] = False,
    classify_with_llm: Annotated[
        bool,
        typer.Option(
            "--classify-with-llm",
            help="No labels: classify each task with the configured chat model (model name stored).",
        ),
    ] = False,
    unlabelled_as_not_digital: Annotated[
        bool,
        typer.Option(
            "--unlabelled-not-digital",
            help="Tasks missing from the labels file become not DIGITAL (default: left unlabelled).",
        ),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Mark tasks DIGITAL from labels; without labels choose --all-candidates or --classify-with-llm."""
    from graphforge.context import open_context
    from graphforge.errors import ConfigError
    from graphforge.stages import load_digital

    chosen = [flag for flag, on in (("FILE", labels is not None), ("--all-candidates", all_candidates),
                                    ("--classify-with-llm", classify_with_llm)) if on]
    if len(chosen) != 1:
        raise ConfigError("choose exactly one source of DIGITAL labels: a labels FILE, --all-candidates or "
                          f"--classify-with-llm (got {', '.join(chosen) or 'none'})")
    mode = (load_digital.DigitalMode.LABELS if labels is not None else
            load_digital.DigitalMode.ALL_CANDIDATES if all_candidates else load_digital.DigitalMode.LLM)
    params = load_digital.LoadDigitalParams(mode=mode, labels=labels,
                                            unlabelled_as_not_digital=unlabelled_as_not_digital)
    with open_context() as ctx:
        with working("labelling tasks DIGITAL"):
            result = load_digital.run(ctx, params)
    emit(result, as_json, "DIGITAL labels")


def taxonomy_sample_cmd(
    out: Annotated[Path, typer.Argument(help="Folder to write the sample into.")],
    xlsx: Annotated[bool, typer.Option("--xlsx", help="Also write the release in its .xlsx form.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Write the bundled taxonomy sample: an O*NET-format extract, DIGITAL labels and a sector mapping."""
    from graphforge.demo.sample import taxonomy

    paths = taxonomy.write_sample(out)
    if xlsx:
        paths["release_xlsx"] = taxonomy.write_release(out / "onet_mini_xlsx", "xlsx")
    emit({k: str(v) for k, v in paths.items()}, as_json, "Taxonomy sample written")


def load_workspace_cmd(
    root: Annotated[Path, typer.Argument(help="Workspace folder to ingest.")],
    seed: Annotated[str | None, typer.Option("--seed", help="Seed id this workspace serves.")] = None,
    manifest: Annotated[
        Path | None,
        typer.Option(
            "--manifest", exists=True, dir_okay=False,
            help="Manifest (JSON/YAML) with per-file role, source URL, license; default: manifest.* in DIR.",
        ),
    ] = None,
    workspace_id: Annotated[
        str | None,
        typer.Option(
            "--workspace-id", help="Workspace id (default: manifest, else derived from the folder path)."
        ),
    ] = None,
    jobs: JobsOption = None,
    timeout_s: TimeoutOption = 60.0,
    max_file_mb: MaxFileMbOption = None,
    retry_invalid: RetryInvalidOption = False,
    rule_roles: RuleRolesOption = False,
    as_json: JsonOption = False,
) -> None:
    """Hash, deduplicate, parse (in parallel, with timeouts) and store a workspace's files and spans."""
    from graphforge.cli.listing import require_known
    from graphforge.context import open_context
    from graphforge.stages import load_workspace as stage

    params = stage.LoadWorkspaceParams(
        root=root,
        manifest=manifest,
        workspace_id=workspace_id,
        seed_id=seed,
        jobs=jobs,
        timeout_s=timeout_s,
        max_file_bytes=max_file_bytes(max_file_mb),
        retry_invalid=retry_invalid,
        use_llm_roles=not rule_roles,
    )
    with open_context() as ctx, progress() as bar:
        require_known(ctx.graph, "seed", seed, "--seed")
        task = bar.add_task("parsing", total=None)

        def tick(done: int, total: int, path: str) -> None:
            bar.update(task, completed=done, total=total, description=f"parsing {path[-40:]}")

        result = stage.run(dataclasses.replace(ctx, progress=tick), params)
    emit(result, as_json, "Workspace loaded")
    note = None if as_json else load_note(result)
    if note:
        stdout.print(note, soft_wrap=True, highlight=False, markup=False)


def load_trajectories_cmd(
    path: Annotated[Path, typer.Argument(help="A log file, or a folder searched recursively.")],
    fmt: Annotated[str, typer.Option(
        "--format", help=f"{format_choices()} (auto, the default: told from each file's content).")] = AUTO,
    spec: Annotated[str | None, typer.Option("--spec", help="Spec id the trajectories attempt.")] = None,
    deliverables: Annotated[
        Path | None,
        typer.Option(
            "--deliverables", help="Folder whose files are the deliverables of the imported run(s)."
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Import agent logs in any registered trajectory format (`graphforge load trajectories --help`).

    One line per file: imported N, or skipped with the reason. Exit 1 when nothing was imported.
    """
    from rich.text import Text

    from graphforge.cli.listing import require_known
    from graphforge.context import open_context
    from graphforge.errors import SourceFormatError
    from graphforge.stages import import_trajectories as stage

    if fmt != AUTO and fmt not in TRAJECTORY_FORMATS:
        raise typer.BadParameter(f"unknown format {fmt!r}; use one of {format_choices()}",
                                 param_hint="--format")
    params = stage.ImportTrajectoriesParams(path=path, format=fmt, spec_id=spec,
                                            deliverables_dir=deliverables)
    with open_context() as ctx:
        require_known(ctx.graph, "spec", spec, "--spec")  # before the folder is read
        with working("importing trajectories"):
            result = stage.run(ctx, params)
    for outcome in result.files:
        style = "yellow" if outcome.skipped is not None else "green" if not outcome.warnings else ""
        console.print(Text(outcome.line(), style=style), soft_wrap=True)
    if result.ignored:
        skipped = ", ".join(f"{n} {suffix}" for suffix, n in result.ignored.items())
        console.print(Text(f"not read (not a log by its name): {skipped}"), soft_wrap=True)
    emit(result.model_dump(exclude={"files"}) if not as_json else result, as_json,
         title="trajectories imported")
    if result.trajectories == 0:
        raise SourceFormatError(path, f"no trajectory imported ({result.skipped_files} file(s) skipped, "
                                      f"{sum(result.ignored.values())} not read)")


def load_benchmark_cmd(
    directory: Annotated[Path, typer.Argument(help="Folder with task records (*.jsonl / *.json) and "
                                                    "reference files (e.g. reference_files/).")],
    name: Annotated[str, typer.Option("--name", help="Benchmark name, e.g. gdpval (the audit and "
                                                     "export refer to it).")],
    as_json: JsonOption = False,
) -> None:
    """Load a benchmark's tasks (prompt, occupation) and reference files (sha256, parsed text)."""
    from graphforge.context import open_context
    from graphforge.stages import load_benchmark as stage

    params = stage.LoadBenchmarkParams(root=directory, name=name)
    with open_context() as ctx, working(f"loading benchmark {name}"):
        result = stage.run(ctx, params)
    emit(result, as_json, f"benchmark {name}")

"""`graphforge load onet|digital|vocab|taxonomy-sample`: the taxonomy area's loader commands."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from graphforge.cli.common import JsonOption, emit, load_app


@load_app.command("onet")
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
            help="Sector mapping CSV/TSV (soc, sector, sub_sector) replacing the 23 SOC 2018 major groups.",
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Validate every file of an O*NET release, then load it (batched, idempotent)."""
    from graphforge.context import open_context
    from loaders import onet

    with open_context() as ctx:
        # load() validates every file before the first write: a bad release writes nothing.
        result = onet.load(ctx, path, release, sectors)
    emit(result, as_json, "O*NET release loaded")


@load_app.command("digital")
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
    from loaders.labels import read_digital_labels

    chosen = [flag for flag, on in (("FILE", labels is not None), ("--all-candidates", all_candidates),
                                    ("--classify-with-llm", classify_with_llm)) if on]
    if len(chosen) != 1:
        raise ConfigError("choose exactly one source of DIGITAL labels: a labels FILE, --all-candidates or "
                          f"--classify-with-llm (got {', '.join(chosen) or 'none'})")
    mode = (load_digital.DigitalMode.LABELS if labels is not None else
            load_digital.DigitalMode.ALL_CANDIDATES if all_candidates else load_digital.DigitalMode.LLM)
    data = read_digital_labels(labels) if labels is not None else None
    with open_context() as ctx:
        result = load_digital.run(ctx, load_digital.LoadDigitalParams(
            mode=mode, unlabelled_as_not_digital=unlabelled_as_not_digital), data)
    emit(result, as_json, "DIGITAL labels")


@load_app.command("taxonomy-sample")
def taxonomy_sample_cmd(
    out: Annotated[Path, typer.Argument(help="Folder to write the sample into.")],
    xlsx: Annotated[bool, typer.Option("--xlsx", help="Also write the release in its .xlsx form.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Write the bundled taxonomy sample: an O*NET-format extract, DIGITAL labels and a sector mapping."""
    from graphforge.sample import taxonomy

    paths = taxonomy.write_sample(out)
    if xlsx:
        paths["release_xlsx"] = taxonomy.write_release(out / "onet_mini_xlsx", "xlsx")
    emit({k: str(v) for k, v in paths.items()}, as_json, "Taxonomy sample written")

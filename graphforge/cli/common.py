"""What every command shares: the root options, --json output, progress bars."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import Enum
from importlib.metadata import PackageNotFoundError, version
from typing import Annotated, Any, TypeVar

import typer
from pydantic import BaseModel
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table


def package_version() -> str:
    try:
        return version("graphforge")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "unknown (not installed)"


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"graphforge {package_version()}")
        raise typer.Exit()


def root_options(
    show_version: Annotated[
        bool,
        typer.Option("--version", is_eager=True, callback=_print_version,
                     help="Print the installed GraphForge version and exit."),
    ] = False,
    verbose: Annotated[
        bool,
        typer.Option("--verbose",
                     help="On an error, show the full traceback instead of the one 'error:' line. May stand "
                          "anywhere on the command line (also GRAPHFORGE_VERBOSE=1)."),
    ] = False,
) -> None:
    """GraphForge: verifiable agent-training tasks from real office files, in Neo4j.

    Every command prints a human summary, or one JSON object on stdout with --json. It exits 0 on
    success and 1 with one 'error: ...' line on stderr otherwise (a bad option value, an unknown id,
    an unreachable Neo4j). Progress goes to stderr.
    """


JsonOption = Annotated[
    bool, typer.Option("--json", help="Print one JSON object on stdout instead of a summary.")
]

console = Console(stderr=True)
stdout = Console()


def emit(result: BaseModel | dict[str, Any], as_json: bool, title: str = "",
         summary: Callable[[Any], None] | None = None) -> None:
    """Print a result: one JSON object with --json, else a human summary (a key/value table by default)."""
    data = result.model_dump(mode="json") if isinstance(result, BaseModel) else result
    if as_json:
        typer.echo(json.dumps(data, ensure_ascii=False, sort_keys=False))
        return
    if summary is not None:
        summary(result)
        return
    table = Table(title=title or None, show_header=False, box=None, pad_edge=False)
    # Values wrap (fold) instead of being cut: ids and reasons are shown whole at any width.
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column(overflow="fold")
    for key, value in data.items():
        if value is None:
            continue
        if isinstance(value, (list, dict)):
            value = json.dumps(value, ensure_ascii=False)
        table.add_row(key, str(value))
    stdout.print(table)


class _Progress(Progress):
    """A progress bar that leaves nothing behind when the command fails (the error is the one line)."""

    def __exit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> None:
        if exc_type is not None:
            self.live.transient = True
        super().__exit__(exc_type, exc_val, exc_tb)


def progress(transient: bool = False) -> Progress:
    """A rich progress bar on stderr, so --json output on stdout stays clean; nothing when stderr is not a
    terminal (rich would leave a blank line there, beside the one 'error:' line of a failed command)."""
    return _Progress(SpinnerColumn(), TextColumn("[progress.description]{task.description}"), BarColumn(),
                     MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn(), console=console,
                     transient=transient, disable=not console.is_terminal)


@contextmanager
def working(label: str) -> Iterator[None]:
    """A spinner with elapsed time on stderr while a command works (nothing when stderr is not a terminal)."""
    with Progress(SpinnerColumn(), TextColumn(label), TimeElapsedColumn(), console=console,
                  transient=True, disable=not console.is_terminal) as bar:
        bar.add_task(label, total=None)
        yield


E = TypeVar("E", bound=Enum)


def choice(enum_cls: type[E], value: str, option: str) -> E:
    """Convert an option value to its enum, or fail as a usage error naming the option and the choices."""
    try:
        return enum_cls(value)
    except ValueError:
        allowed = ", ".join(repr(str(e.value)) for e in enum_cls)
        raise typer.BadParameter(f"{value!r} is not one of {allowed}", param_hint=f"'{option}'") from None

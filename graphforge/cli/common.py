"""What every command shares: the root options, --json output, progress bars."""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Callable, Iterator, Sequence
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
    """Print a result: one JSON object with --json, else a human summary (labelled lines by default)."""
    data = result.model_dump(mode="json") if isinstance(result, BaseModel) else result
    if as_json:
        typer.echo(json.dumps(data, ensure_ascii=False, sort_keys=False))
        return
    if summary is not None:
        summary(result)
        return
    print_fields(title, [(_label(key), describe(value)) for key, value in data.items() if value is not None])


# -- human summaries: words, not JSON ------------------------------------------------------------------

_HASH = re.compile(r"[0-9a-f]{32,}")
_LEAD_KEYS = ("path", "name", "spec_id", "trajectory_id", "workspace_id", "seed_id", "criterion_id", "id",
              "kind", "arm")
MAX_ITEMS = 12  # list items and mapping entries shown before "… N more"
MAX_RECORDS = 5  # records (lists of mappings) shown before "… N more"


def short_hash(text: str) -> str:
    """A sha256 or other long hex digest as its first 8 and last 4 digits (whole strings only)."""
    return text[:8] + "…" + text[-4:] if _HASH.fullmatch(text) else text


def describe(value: Any) -> str:
    """A result value in words: lists and mappings as short phrases, records one per line, digests short.

    Nothing is cut inside a word; long lists end in "… N more" (--json shows everything)."""
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        lines = [f"{len(value)}:"] + [f"- {_inline(v)}" for v in value[:MAX_RECORDS]]
        if len(value) > MAX_RECORDS:
            lines.append(f"… {len(value) - MAX_RECORDS} more (--json shows them)")
        return "\n".join(lines)
    return _inline(value)


_FIELD_NAME = re.compile(r"[a-z0-9]+(?:_[a-z0-9]+)+")


def _label(key: object) -> str:
    """A field name in words (snake_case -> spaces); any other key (a label, a pattern name) as it is."""
    text = str(key)
    return text.replace("_", " ") if _FIELD_NAME.fullmatch(text) else text


def _inline(value: Any, depth: int = 0) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, str):
        return short_hash(value)
    if isinstance(value, dict):
        if not value:
            return "none"
        items = list(value.items())
        lead = next((k for k in _LEAD_KEYS if isinstance(value.get(k), str)), None)
        head = ""
        if lead is not None:
            head = short_hash(value[lead])
            items = [(k, v) for k, v in items if k != lead]
        shown = [f"{_label(k)}: {_inline(v, depth + 1)}" for k, v in items[:MAX_ITEMS] if v is not None]
        more = [f"… {len(items) - MAX_ITEMS} more"] if len(items) > MAX_ITEMS else []
        body = "; ".join(shown + more)
        return f"{head} ({body})" if head and body else head or body
    if isinstance(value, (list, tuple)):
        if not value:
            return "none"
        if depth > 0 and len(value) > 3:  # inside a record: how many, not what (--json has them)
            return f"{len(value)} items"
        shown = [_inline(v, depth + 1) for v in value[:MAX_ITEMS]]
        more = [f"… {len(value) - MAX_ITEMS} more"] if len(value) > MAX_ITEMS else []
        return ", ".join(shown + more)
    return str(value)


def say(text: str, out: Console | None = None, style: str | None = None) -> None:
    """Print ``text`` as it is: no markup, emoji codes or highlighting, and never wrapped by the console
    (a URL or path stays on one line; the terminal may fold it visually, copying it gives it whole)."""
    (out or stdout).print(text, style=style, soft_wrap=True, markup=False, emoji=False, highlight=False)


def print_fields(title: str, fields: Sequence[tuple[str, str]], out: Console | None = None) -> None:
    """A title line, then one 'label  value' field per line; values wrap at words under their column and
    never break one (a long path or URL stays whole on its line)."""
    out = out or stdout
    if title:
        say(title, out, style="bold")
    if not fields:
        return
    label_width = min(max(len(label) for label, _ in fields), 28)
    indent = 2 + label_width + 2
    width = max(out.width - indent, 20)
    for label, value in fields:
        lines: list[str] = []
        for part in value.split("\n") or [""]:
            hang = "  " if part.startswith("- ") else ""  # a record's later lines sit under its text
            lines += textwrap.wrap(part, width, subsequent_indent=hang, break_long_words=False,
                                   break_on_hyphens=False) or [""]
        first = f"  {label:<{label_width}}  "
        if len(label) > label_width:  # a long label has the line to itself
            say(f"  {label}", out)
            first = " " * indent
        for i, line in enumerate(lines):
            say((first if i == 0 else " " * indent) + line, out)


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

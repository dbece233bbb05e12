"""Entry point: registers every command group and turns GraphforgeError into one line and exit 1."""

from __future__ import annotations

import os
import sys

import typer
from pydantic import ValidationError

try:  # typer vendors click as typer._click since 0.2x; its usage errors are these classes
    from typer._click.exceptions import ClickException, NoArgsIsHelpError, UsageError
except ImportError:  # pragma: no cover - older typer on top of click
    from click.exceptions import ClickException, NoArgsIsHelpError, UsageError  # type: ignore[assignment]

from graphforge.cli import (  # noqa: F401  (importing registers each area's commands)
    audit,
    browser,
    db,
    demo,
    evaluation,
    evidence_specs,
    export,
    judging,
    listing,
    llm,
    load,
    rollouts,
    seeds,
)
from graphforge.cli.common import app
from graphforge.errors import GraphforgeError

app.add_typer(listing.list_app, name="list")
app.command("browser")(browser.browser_cmd)


def one_line(text: str) -> str:
    """Collapse a message onto one line (the CLI's promise: one 'error:' line)."""
    return " ".join(str(text).split())


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit status (0 success, 1 error with a one-line message)."""
    args = list(sys.argv[1:] if argv is None else argv)
    verbose = "--verbose" in args or os.environ.get("GRAPHFORGE_VERBOSE") == "1"
    args = [a for a in args if a != "--verbose"]
    try:
        # Not standalone: usage errors (bad option values, unknown options) come back to us as exceptions
        # and are printed as one line with exit 1, like every other error.
        code = app(args=args, prog_name="graphforge", standalone_mode=False)
        return code if isinstance(code, int) else 0
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except NoArgsIsHelpError as exc:
        # `graphforge` or `graphforge GROUP` alone: typer has printed the help that was asked for.
        del exc
        return 0
    except ClickException as exc:
        if verbose:
            raise
        where = ""
        if isinstance(exc, UsageError) and exc.ctx is not None:
            where = exc.ctx.command_path.removeprefix("graphforge").strip()
        typer.echo(f"error: {where + ': ' if where else ''}{one_line(exc.format_message())}", err=True)
        return 1
    except typer.Abort:
        typer.echo("error: aborted", err=True)
        return 1
    except GraphforgeError as exc:
        if verbose:
            raise
        typer.echo(f"error: {one_line(str(exc))}", err=True)
        return 1
    except ValidationError as exc:
        # Stage params validate the options a command passes on; a bad value is a usage error.
        if verbose:
            raise
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        typer.echo(f"error: invalid option value: {one_line(problems)}", err=True)
        return 1
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        return 130


if __name__ == "__main__":
    sys.exit(main())

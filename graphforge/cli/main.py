"""Entry point: registers every command group and turns GraphforgeError into one line and exit 1."""

from __future__ import annotations

import os
import sys

import click

from graphforge.cli import (  # noqa: F401  (importing registers each area's commands)
    audit_export,
    db,
    demo,
    evaluation,
    rollouts,
    taxonomy,
    workspace,
)
from graphforge.cli.common import app
from graphforge.errors import GraphforgeError


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit status (0 success, 1 error with a one-line message)."""
    args = list(sys.argv[1:] if argv is None else argv)
    verbose = "--verbose" in args or os.environ.get("GRAPHFORGE_VERBOSE") == "1"
    args = [a for a in args if a != "--verbose"]
    try:
        app(args=args, prog_name="graphforge", standalone_mode=False)
    except GraphforgeError as exc:
        if verbose:
            raise
        click.echo(f"error: {exc}", err=True)
        return 1
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        return 1 if exc.exit_code == 0 else exc.exit_code
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        return 1
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Entry point: registers every command group and turns GraphforgeError into one line and exit 1."""

from __future__ import annotations

import os
import sys

import typer
from pydantic import ValidationError

from graphforge.cli import (  # noqa: F401  (importing registers each area's commands)
    audit,
    db,
    demo,
    evaluation,
    evidence_specs,
    export,
    judging,
    load,
    rollouts,
    seeds,
)
from graphforge.cli.common import app
from graphforge.errors import GraphforgeError


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit status (0 success, 1 error with a one-line message)."""
    args = list(sys.argv[1:] if argv is None else argv)
    verbose = "--verbose" in args or os.environ.get("GRAPHFORGE_VERBOSE") == "1"
    args = [a for a in args if a != "--verbose"]
    try:
        # Standalone mode lets typer report usage errors itself (exit 2); our own errors pass through.
        app(args=args, prog_name="graphforge", standalone_mode=True)
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except GraphforgeError as exc:
        if verbose:
            raise
        typer.echo(f"error: {exc}", err=True)
        return 1
    except ValidationError as exc:
        # Stage params validate the options a command passes on; a bad value is a usage error.
        if verbose:
            raise
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        typer.echo(f"error: invalid option value: {problems}", err=True)
        return 1
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())

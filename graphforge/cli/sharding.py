"""The ``--shard i/n`` option of the long stages.

load workspaces, evidence build, specs compile, rollout oracle and run, judge, revise.
"""

from __future__ import annotations

from typing import Annotated

import typer

ShardOption = Annotated[
    str | None,
    typer.Option(
        "--shard",
        help="Run only shard i of n (0-based, e.g. 0/4 .. 3/4): the items whose natural key hashes there "
        "(sha256 mod n). n processes on n machines may share one Neo4j; writes are idempotent.",
    ),
]

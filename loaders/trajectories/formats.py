"""The registry of trajectory formats: every module of this package that defines ``FORMAT``, plus those
installed distributions register under the ``graphforge.trajectory_formats`` entry point group.

Sniffing, the ``--format`` choices and help, ``import:FORMAT:PATH`` eval players and the docs' table all
read :data:`TRAJECTORY_FORMATS`; adding a format is adding its module.
"""

from __future__ import annotations

from graphforge.registry import Column, Registry
from loaders.trajectories.base import TrajectoryFormatSpec

AUTO = "auto"  # --format auto: each file's format told from its content
ENTRY_POINT_GROUP = "graphforge.trajectory_formats"


def _how(f: TrajectoryFormatSpec) -> str:
    claims = (("file name", f.path), ("JSON document", f.document), ("JSON Lines record", f.record),
              ("folder", f.folder))
    ways = [w for w, on in claims if on is not None]
    return ", ".join(ways) or "never (use --format)"


TRAJECTORY_FORMATS: Registry[TrajectoryFormatSpec] = Registry(
    "trajectory format",
    TrajectoryFormatSpec,
    lambda f: f.name,
    packages=("loaders.trajectories",),
    attribute="FORMAT",
    group=ENTRY_POINT_GROUP,
    rank=lambda f: (f.rank, f.name),
    columns=(
        Column("format", lambda f: f"`{f.name}`"),
        Column("reads", lambda f: f.title),
        Column("files", lambda f: " ".join(sorted(f.suffixes))),
        Column("told by", _how),
        Column("eval import", lambda f: "yes" if f.evaluable else "no"),
    ),
)


def format_names(evaluable: bool = False) -> list[str]:
    """The registered formats' names in sniffing order (only those eval players may import, if asked)."""
    return [f.name for f in TRAJECTORY_FORMATS if f.evaluable or not evaluable]


def format_choices() -> str:
    """``auto | name | ...`` for help texts."""
    return " | ".join([AUTO, *format_names()])


def check_format(name: str) -> str:
    """``name`` if it is ``auto`` or a registered format; a ConfigError listing them otherwise."""
    if name != AUTO:
        TRAJECTORY_FORMATS.get(name)
    return name

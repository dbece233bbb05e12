"""Task families: a named Cypher pattern over the evidence graph plus the spec it compiles to.

A family is one module that defines ``FAMILY = Family(...)``, and one query ``<name>.cypher`` that takes
``$workspace_id`` and returns the rows the family builds from. The families whose query returns rows are
the ones a workspace supports; the seed's execution pattern, input family and work demands pick one of
them (without a seed, the lowest ``rank``). Adding a family is adding its module and its Cypher file:
nothing else is edited (a test does exactly that).

:data:`FAMILIES` is the registry (:mod:`graphforge.registry`): the modules of this package (their queries
in ``cypher/families/``), those installed distributions register under the ``graphforge.families`` entry
point group, and the modules of the folders in ``GRAPHFORGE_FAMILY_DIRS`` (``os.pathsep``-separated);
an outside family's query is the ``<name>.cypher`` file beside its module.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from graphforge.graphdb import cypher
from graphforge.graphdb.cypher import CYPHER_DIR, CypherQuery
from graphforge.models.spec import TaskSpec
from graphforge.registry import Column, Registry
from graphforge.specs.templates import WorkspaceGraph

ENTRY_POINT_GROUP = "graphforge.families"
FOLDERS_ENV = "GRAPHFORGE_FAMILY_DIRS"
DEFAULT_RANK = 1000  # a family that states none comes after the bundled ones when no seed chooses


@dataclass(frozen=True)
class SeedContext:
    """What the seed says about the work: who does it and how (all optional for a seedless workspace)."""

    seed_id: str | None = None
    occupation: str | None = None
    task: str | None = None
    pattern: str | None = None
    input_family: str | None = None
    demands: tuple[str, ...] = ()


@dataclass(frozen=True)
class FamilyInput:
    """What a family's ``build`` reads: the workspace's graph, the seed, and its query's rows."""

    graph: WorkspaceGraph
    seed: SeedContext
    rows: list[dict[str, Any]]  # what the family's Cypher pattern returned for this workspace
    version: int = 1


@dataclass(frozen=True)
class Family:
    """A task family: its Cypher pattern (``query``, set by :func:`load_families`) and the spec it builds."""

    name: str
    title: str  # "a change memo between two versions"
    patterns: tuple[str, ...]  # execution patterns (vocabulary names) this family serves
    inputs: tuple[str, ...]  # input families it reads best
    formats: tuple[str, ...]  # deliverable formats it writes
    build: Callable[[FamilyInput], TaskSpec | None]
    keywords: tuple[str, ...] = ()  # demand words that favour it ("deadline", "checklist", ...)
    rank: int = DEFAULT_RANK  # without a seed, the supported family of lowest rank is compiled
    query: CypherQuery | None = field(default=None, compare=False)


def _folders() -> list[Path]:
    return [Path(p) for p in os.environ.get(FOLDERS_ENV, "").split(os.pathsep) if p.strip()]


FAMILIES: Registry[Family] = Registry(
    "task family",
    Family,
    lambda f: f.name,
    packages=(__name__,),
    attribute="FAMILY",
    group=ENTRY_POINT_GROUP,
    folders=_folders,
    rank=lambda f: (f.rank, f.name),
    columns=(
        Column("family", lambda f: f"`{f.name}`"),
        Column("task", lambda f: f.title),
        Column("execution patterns", lambda f: ", ".join(f.patterns)),
        Column("inputs", lambda f: ", ".join(f.inputs)),
        Column("deliverables", lambda f: ", ".join(f.formats)),
        Column("rank", lambda f: str(f.rank)),
    ),
)


def _module_file(family: Family) -> Path | None:
    module = sys.modules.get(getattr(family.build, "__module__", ""))
    path = getattr(module, "__file__", None)
    return Path(path) if path else None


def _load_query(family: Family, cypher_dir: Path) -> CypherQuery:
    """``<cypher_dir>/families/<name>.cypher``, else (outside families) ``<name>.cypher`` by the module."""
    name = family.name
    bundled = cypher_dir / "families" / f"{name}.cypher"
    if cypher_dir == CYPHER_DIR and bundled.is_file():
        return cypher.load(f"families/{name}")
    module = _module_file(family)
    beside = module.parent / f"{name}.cypher" if module is not None else None
    path = bundled if bundled.is_file() or beside is None or not beside.is_file() else beside
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        from graphforge.errors import ConfigError

        raise ConfigError(f"task family {name!r}: its Cypher pattern {path} cannot be read "
                          f"({exc.strerror})") from exc
    return CypherQuery(f"families/{name}", text, cypher.parameters_of(text))


def load_families(folders: Iterable[Path] = (), cypher_dir: Path = CYPHER_DIR) -> list[Family]:
    """The registered families (:data:`FAMILIES`) plus those in ``folders`` (modules defining FAMILY), in rank
    order, each with its query."""
    found = {f.name: f for f in FAMILIES}
    if folders:
        extra: Registry[Family] = Registry("task family", Family, lambda f: f.name, attribute="FAMILY",
                                           folders=lambda: list(folders))
        found.update({f.name: f for f in extra})
    ordered = sorted(found.values(), key=lambda f: (f.rank, f.name))
    return [replace(f, query=_load_query(f, cypher_dir)) for f in ordered]


def affinity(family: Family, seed: SeedContext) -> float:
    """How well a family fits the seed: its execution pattern first, then input family and demands."""
    score = 0.0
    if seed.pattern and seed.pattern in family.patterns:
        score += 4.0 - 0.5 * family.patterns.index(seed.pattern) / max(1, len(family.patterns))
    if seed.input_family and seed.input_family in family.inputs:
        score += 1.0
    words = " ".join((*seed.demands, seed.task or "")).lower()
    score += 0.5 * sum(1 for k in family.keywords if k in words)
    return score


def choose(
    supported: Sequence[Family], all_families: Sequence[Family], seed: SeedContext
) -> tuple[Family, str]:
    """The family to compile for a seed, and why (nearest supported one when the preferred is not)."""
    ranked = sorted(supported, key=lambda f: (-affinity(f, seed), f.name))
    best = ranked[0]
    preferred = sorted(all_families, key=lambda f: (-affinity(f, seed), f.name))[0]
    pattern = f"execution pattern {seed.pattern!r}" if seed.pattern else "no execution pattern"
    if best.name == preferred.name:
        return best, f"seed {seed.seed_id or '-'} ({pattern}) asks for {best.title}; the evidence supports it"
    return best, (
        f"seed {seed.seed_id or '-'} ({pattern}) asks for {preferred.title}, which the evidence "
        f"does not support (its pattern {preferred.name} matched nothing); nearest supported "
        f"family: {best.title}"
    )

"""Task families: a named Cypher pattern over the evidence graph plus the spec it compiles to.

A family is one module in this package (or in any folder passed to :func:`load_families`) that defines
``FAMILY = Family(...)``, and one query ``cypher/families/<name>.cypher`` that takes ``$workspace_id`` and
returns the rows the family builds from. The families whose query returns rows are the ones a workspace
supports; the seed's execution pattern, input family and work demands pick one of them. Adding a family
is adding its module and its Cypher file: nothing else is edited (a test does exactly that).
"""

from __future__ import annotations

import importlib.util
import pkgutil
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphforge import cypher
from graphforge.cypher import CYPHER_DIR, CypherQuery
from graphforge.models.spec import TaskSpec
from graphforge.specs.templates import WorkspaceGraph


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
    graph: WorkspaceGraph
    seed: SeedContext
    rows: list[dict[str, Any]]  # what the family's Cypher pattern returned for this workspace
    version: int = 1


@dataclass(frozen=True)
class Family:
    name: str
    title: str  # "a change memo between two versions"
    patterns: tuple[str, ...]  # execution patterns (vocabulary names) this family serves
    inputs: tuple[str, ...]  # input families it reads best
    formats: tuple[str, ...]  # deliverable formats it writes
    build: Callable[[FamilyInput], TaskSpec | None]
    keywords: tuple[str, ...] = ()  # demand words that favour it ("deadline", "checklist", ...)
    query: CypherQuery | None = field(default=None, compare=False)


def _load_query(name: str, cypher_dir: Path) -> CypherQuery:
    if cypher_dir == CYPHER_DIR:
        return cypher.load(f"families/{name}")
    text = (cypher_dir / "families" / f"{name}.cypher").read_text(encoding="utf-8")
    return CypherQuery(f"families/{name}", text, cypher.parameters_of(text))


def load_families(folders: Iterable[Path] = (), cypher_dir: Path = CYPHER_DIR) -> list[Family]:
    """The bundled families plus those in ``folders`` (modules defining FAMILY), each with its query."""
    found: dict[str, Family] = {}
    here = Path(__file__).resolve().parent
    for folder in [here, *folders]:
        for info in sorted(pkgutil.iter_modules([str(folder)]), key=lambda i: i.name):
            if info.name.startswith("_"):
                continue
            if folder == here:
                module = importlib.import_module(f"{__name__}.{info.name}")
            else:
                spec = importlib.util.spec_from_file_location(
                    f"graphforge_family_{info.name}", folder / f"{info.name}.py"
                )
                if spec is None or spec.loader is None:
                    continue
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
            family = getattr(module, "FAMILY", None)
            if isinstance(family, Family):
                found[family.name] = Family(
                    **{**family.__dict__, "query": _load_query(family.name, cypher_dir)}
                )
    return list(found.values())


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

"""Pipeline stages: one module per stage with <Stage>Params, <Stage>Result and run(ctx, params).

:data:`STAGES` lists them (found from this package's modules that define ``run``, with the Params and
Result classes its signature names); it documents the pipeline and never wires it: callers import the
stage they run (``from graphforge.stages import compile_specs``), and ``graphforge.demo.run.STEPS`` is
the pipeline's order.
"""

from __future__ import annotations

import importlib
import pkgutil
import typing
from dataclasses import dataclass

from pydantic import BaseModel

from graphforge.registry import Column, Registry


@dataclass(frozen=True)
class Stage:
    """One stage module: its name, what it does (its docstring's first line), its Params and Result."""

    name: str
    summary: str
    params: type[BaseModel]
    result: type[BaseModel]


def _stage_modules() -> list[Stage]:
    out = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        run = getattr(module, "run", None)
        if run is None:
            continue
        hints = typing.get_type_hints(run)
        params = next((h for n, h in hints.items() if n != "return" and isinstance(h, type)
                       and issubclass(h, BaseModel)), None)
        result = hints.get("return")
        if params is None or not (isinstance(result, type) and issubclass(result, BaseModel)):
            continue
        summary = ((module.__doc__ or "").strip().splitlines() or [""])[0]
        out.append(Stage(info.name, summary, params, result))
    return out


def _fields(model: type[BaseModel]) -> str:
    return ", ".join(f"`{name}`" for name in model.model_fields)


STAGES: Registry[Stage] = Registry(
    "stage",
    Stage,
    lambda s: s.name,
    builtin=_stage_modules,
    columns=(
        Column("stage", lambda s: f"`{s.name}`"),
        Column("does", lambda s: s.summary),
        Column("params", lambda s: _fields(s.params)),
        Column("result", lambda s: s.result.__name__),
    ),
)


def extension_tables() -> str:
    """Every registry as Markdown (file parsers, trajectory formats, task families, stages), for the docs."""
    from graphforge.parsers import FILE_PARSERS
    from graphforge.registry import registries_markdown
    from graphforge.specs.families import FAMILIES
    from loaders.trajectories.formats import TRAJECTORY_FORMATS

    return registries_markdown([("File parsers", FILE_PARSERS), ("Trajectory formats", TRAJECTORY_FORMATS),
                                ("Task families", FAMILIES), ("Stages", STAGES)])

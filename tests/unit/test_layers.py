"""The layers of DESIGN.md hold: each module imports only from the layers below it.

1. core ``graphforge/*`` never imports ``loaders``, ``graphforge.stages``, ``graphforge.cli``,
   ``graphforge.demo`` or ``training``;
2. ``loaders/`` imports only ``graphforge.models``, ``.parsers``, ``.figures``, ``.errors`` (and
   ``loaders.*``), never the graph: no ``neo4j``, no ``graphforge.graphdb`` / ``.stores`` / ``.context``;
3. ``graphforge/stages/`` never imports another stage (so no stage calls another's ``run``), the CLI or
   the demo;
4. ``graphforge/cli/`` and ``graphforge/demo/`` sit on top; the demo does not import the CLI;
``training/`` reads exported files and imports no graph code.

Every import counts, including those inside functions and under ``TYPE_CHECKING``, and
``importlib.import_module("...")`` with a literal name.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

CORE_FORBIDDEN = ("loaders", "training", "graphforge.stages", "graphforge.cli", "graphforge.demo")
LOADER_ALLOWED = ("graphforge.models", "graphforge.parsers", "graphforge.figures", "graphforge.errors",
                  "graphforge.registry", "loaders")
LOADER_FORBIDDEN = ("neo4j", "training")
STAGE_FORBIDDEN = ("graphforge.cli", "graphforge.demo", "training")
DEMO_FORBIDDEN = ("graphforge.cli", "training")
TRAINING_FORBIDDEN = ("neo4j", "loaders", "graphforge.graphdb", "graphforge.stores", "graphforge.context",
                      "graphforge.stages", "graphforge.cli", "graphforge.demo")
# The package's `python -m graphforge` entry point is the CLI's, on top like it.
ON_TOP = {"stages", "cli", "demo", "__main__.py"}


def _within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _module_of(rel: str) -> str:
    parts = Path(rel).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_names(rel: str, source: str) -> Iterator[tuple[int, str]]:
    """(line, dotted name) for everything ``source`` (the file at ``rel``) imports.

    ``from a.b import c`` gives ``a.b.c``: c may be a submodule, and a name inside a.b is judged by a.b.
    Relative imports are resolved against the file's package.
    """
    package = _module_of(rel) if rel.endswith("__init__.py") else _module_of(rel).rpartition(".")[0]
    for node in ast.walk(ast.parse(source, rel)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                yield node.lineno, f"{base}.{alias.name}" if alias.name != "*" else base
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr == "import_module" and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            yield node.lineno, node.args[0].value


def layer_violations(rel: str, source: str) -> list[str]:
    """Each import in ``source`` that its layer forbids, as "path:line: imports name (rule)"."""
    parts = Path(rel).parts
    out: list[str] = []
    for line, name in imported_names(rel, source):
        where = f"{rel}:{line}: imports {name}"
        if parts[0] == "graphforge" and parts[1] not in ON_TOP:
            if _within(name, CORE_FORBIDDEN):
                out.append(f"{where} (core never imports loaders, stages, cli, demo or training)")
        elif parts[0] == "graphforge" and parts[1] == "stages":
            this = _module_of(rel)
            if _within(name, STAGE_FORBIDDEN):
                out.append(f"{where} (a stage never imports the cli, the demo or training)")
            elif _within(name, ("graphforge.stages",)) and name != "graphforge.stages":
                other = ".".join(name.split(".")[:3])
                if other != this:
                    out.append(f"{where} (a stage never imports another stage)")
        elif parts[0] == "graphforge" and parts[1] == "demo":
            if _within(name, DEMO_FORBIDDEN):
                out.append(f"{where} (the demo runs stages, never the cli)")
        elif parts[0] == "loaders":
            if _within(name, LOADER_FORBIDDEN) or (_within(name, ("graphforge",))
                                                   and not _within(name, LOADER_ALLOWED)):
                out.append(f"{where} (loaders import only graphforge.models, parsers, figures, errors)")
        elif parts[0] == "training":
            if _within(name, TRAINING_FORBIDDEN):
                out.append(f"{where} (training reads exported files, no graph code)")
    return out


def _sources() -> list[Path]:
    return sorted(p for top in ("graphforge", "loaders", "training") for p in (REPO / top).rglob("*.py"))


def test_every_module_imports_only_from_the_layers_below_it() -> None:
    files = _sources()
    assert len(files) > 100 and any(p.parts[-2] == "loaders" for p in files)  # the walk found the tree
    problems = [v for p in files
                for v in layer_violations(p.relative_to(REPO).as_posix(), p.read_text(encoding="utf-8"))]
    assert not problems, "\n".join(problems)


# The check itself: each violation below must be caught, each allowed import must pass.
VIOLATIONS = [
    ("graphforge/specs/fake.py", "from graphforge.stages import compile_specs\n", "core never imports"),
    ("graphforge/specs/fake.py", "from graphforge.stages.compile_specs import run\n", "core never imports"),
    ("graphforge/judge/fake.py", "def f():\n    from loaders.workspace import scan_workspace\n",
     "core never imports"),
    ("graphforge/evidence/fake.py", "import graphforge.cli.main\n", "core never imports"),
    ("graphforge/figures/fake.py", "from graphforge import demo\n", "core never imports"),
    ("graphforge/fake.py", "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    import training.sft\n",
     "core never imports"),
    ("graphforge/export/fake.py", "import importlib\n\nimportlib.import_module('graphforge.stages.x')\n",
     "core never imports"),
    ("graphforge/specs/families/fake.py", "from ...stages import load_onet\n", "core never imports"),
    ("loaders/fake.py", "import neo4j\n", "loaders import only"),
    ("loaders/fake.py", "from neo4j import GraphDatabase\n", "loaders import only"),
    ("loaders/fake.py", "from graphforge.context import StageContext\n", "loaders import only"),
    ("loaders/fake.py", "from graphforge.graphdb.graph import Graph\n", "loaders import only"),
    ("loaders/fake.py", "from graphforge.graphdb import cypher\n", "loaders import only"),
    ("loaders/fake.py", "from graphforge.stores import specs\n", "loaders import only"),
    ("loaders/fake.py", "from graphforge.stages import load_workspace\n", "loaders import only"),
    ("loaders/trajectories/fake.py", "def f():\n    from graphforge.llm import chat_model\n",
     "loaders import only"),
    ("loaders/fake.py", "from graphforge.cli.common import app\n", "loaders import only"),
    ("graphforge/stages/load_fake.py", "from graphforge.stages import load_vocab\n", "another stage"),
    ("graphforge/stages/load_fake.py", "from graphforge.stages.load_benchmark import run\n", "another stage"),
    ("graphforge/stages/load_fake.py", "from .load_vocab import run\n", "another stage"),
    ("graphforge/stages/load_fake.py", "from graphforge.demo.run import STEPS\n", "never imports the cli"),
    ("graphforge/demo/fake.py", "from graphforge.cli.common import app\n", "never the cli"),
    ("training/fake.py", "from graphforge.graphdb.graph import Graph\n", "no graph code"),
]
ALLOWED = [
    ("graphforge/specs/fake.py", ["from graphforge.graphdb import cypher",
                                  "from graphforge.figures import parse_value"]),
    ("graphforge/stages/load_fake.py", ["from loaders.workspace import scan_workspace",
                                        "from graphforge.stages.load_fake import X",
                                        "import graphforge.stages"]),
    ("loaders/fake.py", ["from graphforge.models.workspace import FileRole",
                         "from graphforge.parsers import ParseLimits",
                         "from graphforge.parsers.office_zip import normalize_package",
                         "from graphforge.errors import SourceFormatError",
                         "from graphforge.figures import parse_value",
                         "from loaders.workspace import walk_regular_files", "import yaml"]),
    ("graphforge/demo/fake.py", ["from graphforge.stages import load_onet",
                                 "from loaders.onet import read_release"]),
    ("graphforge/cli/fake.py", ["from graphforge.demo.run import run_demo",
                                "from graphforge.stages import load_onet"]),
    ("graphforge/__main__.py", ["from graphforge.cli.main import main"]),
]


@pytest.mark.parametrize(("rel", "source", "rule"), VIOLATIONS,
                         ids=[f"{r}:{s.splitlines()[-1].strip()}" for r, s, _ in VIOLATIONS])
def test_a_forbidden_import_is_caught(rel: str, source: str, rule: str) -> None:
    found = layer_violations(rel, source)
    assert len(found) == 1 and rule in found[0], found


@pytest.mark.parametrize(("rel", "lines"), ALLOWED, ids=[r for r, _ in ALLOWED])
def test_an_import_the_layers_allow_passes(rel: str, lines: list[str]) -> None:
    assert layer_violations(rel, "\n".join(lines) + "\n") == []


def cli_registrations(rel: str, source: str) -> list[str]:
    """Commands or groups a module registers as a side effect (a decorator or call on a Typer object)."""
    out = []
    for node in ast.walk(ast.parse(source, rel)):
        call = node if isinstance(node, ast.Call) else None
        if call is not None and isinstance(call.func, ast.Attribute) and call.func.attr in {
                "command", "callback", "add_typer"}:
            out.append(f"{rel}:{call.lineno}: {ast.unparse(call.func)}(...)")
    return out


def test_only_the_cli_entry_point_registers_commands() -> None:
    # Command modules define functions; graphforge/cli/main.py builds the whole tree (no import side effects).
    problems = [r for p in sorted((REPO / "graphforge" / "cli").glob("*.py")) if p.name != "main.py"
                for r in cli_registrations(p.relative_to(REPO).as_posix(), p.read_text(encoding="utf-8"))]
    assert not problems, "\n".join(problems)
    main = (REPO / "graphforge" / "cli" / "main.py").read_text(encoding="utf-8")
    assert cli_registrations("graphforge/cli/main.py", main)  # the check sees registrations where they are


def test_a_command_registered_on_import_is_caught() -> None:
    source = "from graphforge.cli.common import load_app\n\n@load_app.command('onet')\ndef f() -> None: ...\n"
    assert len(cli_registrations("graphforge/cli/fake.py", source)) == 1


def _stage_shaped(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Called like a stage: a context (``ctx`` or a ``StageContext``) then parameters (``params`` or a
    ``...Params`` model). Helpers that take the context and plain values (``gather(ctx, workspace_id)``)
    or pure helpers over a Params model (``plan_selection(pool, params, ...)``) are not entry points."""
    args = fn.args.args
    if len(args) < 2:
        return False
    first, second = (ast.unparse(a.annotation).rpartition(".")[2] if a.annotation is not None else ""
                     for a in args[:2])
    return ((args[0].arg == "ctx" or first == "StageContext")
            and (args[1].arg == "params" or second.endswith("Params")))


def stage_shape_problems(rel: str, source: str) -> list[str]:
    """A stage module without exactly one entry point ``run(ctx: StageContext, params)``, or a stage entry
    point elsewhere."""
    body = ast.parse(source, rel).body
    runs = [n for n in body if isinstance(n, ast.FunctionDef) and n.name == "run"]
    if rel.startswith("graphforge/stages/") and not rel.endswith("__init__.py"):
        others = [n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                  and n.name != "run" and not n.name.startswith("_") and _stage_shaped(n)]
        if others:
            return [f"{rel}:{n.lineno}: {n.name}() is a second stage entry point; a stage module has one "
                    f"run(ctx, params) (fold it into run's Params, or loop in the caller)" for n in others]
        if len(runs) != 1:
            return [f"{rel}: a stage module defines one run(ctx, params)"]
        a = runs[0].args
        shape = ([x.arg for x in a.args], [ast.unparse(x.annotation) if x.annotation else "" for x in a.args])
        if (shape[0] != ["ctx", "params"] or shape[1][0] != "StageContext" or a.kwonlyargs or a.vararg
                or a.kwarg or a.defaults or runs[0].returns is None):
            return [f"{rel}:{runs[0].lineno}: run must be exactly run(ctx: StageContext, params) -> Result"]
        return []
    return [f"{rel}:{r.lineno}: a run(ctx: StageContext, ...) belongs in graphforge/stages/" for r in runs
            if r.args.args and r.args.args[0].annotation is not None
            and ast.unparse(r.args.args[0].annotation) == "StageContext"]


def test_every_stage_is_exactly_run_ctx_params_and_lives_in_stages() -> None:
    files = sorted((REPO / "graphforge").rglob("*.py"))
    problems = [v for p in files
                for v in stage_shape_problems(p.relative_to(REPO).as_posix(), p.read_text(encoding="utf-8"))]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(("rel", "source"), [
    ("graphforge/stages/x.py", "def run(ctx: StageContext, params: P, progress=None) -> R: ...\n"),
    ("graphforge/stages/x.py", "def run(ctx: StageContext, params: P, *, lookup: L = None) -> R: ...\n"),
    ("graphforge/stages/x.py", "def run(ctx: StageContext, root: Path, name: str) -> R: ...\n"),
    ("graphforge/stages/x.py", "def load(ctx: StageContext, params: P) -> R: ...\n"),
    ("graphforge/export/x.py", "def run(ctx: StageContext, params: P) -> R: ...\n"),
    # a second public entry point beside run (rollout_oracle.run_all was one)
    ("graphforge/stages/x.py", "def run(ctx: StageContext, params: P) -> R: ...\n"
                               "def run_all(ctx: StageContext, params: AllP) -> AllR: ...\n"),
    ("graphforge/stages/x.py", "def run(ctx: StageContext, params: P) -> R: ...\n"
                               "async def arun(c: context.StageContext, p: x.BatchParams) -> R: ...\n"),
    ("graphforge/stages/x.py", "def run(ctx: StageContext, params: P) -> R: ...\n"
                               "def run_many(ctx, params): ...\n"),
])
def test_a_stage_of_another_shape_or_place_is_caught(rel: str, source: str) -> None:
    assert len(stage_shape_problems(rel, source)) == 1
    good = "def run(ctx: StageContext, params: P) -> R: ...\n"
    assert stage_shape_problems("graphforge/stages/x.py", good) == []
    # private helpers and pure public helpers beside run stay allowed
    helpers = good + ("def _each(ctx: StageContext, params: P) -> X: ...\n"
                      "def gather(ctx: StageContext, workspace_id: str) -> G: ...\n"
                      "def plan(pool: list[C], params: SelectParams) -> list[int]: ...\n"
                      "def select_links(candidates: list[C], limit: int) -> list[L]: ...\n")
    assert stage_shape_problems("graphforge/stages/x.py", helpers) == []

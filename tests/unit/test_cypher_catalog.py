"""Every query file is loaded, and every call site passes exactly the parameters its query uses."""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import graphforge
from graphforge.graphdb import cypher

REPO = Path(__file__).resolve().parents[2]
SOURCE_DIRS = [REPO / "graphforge", REPO / "loaders"]
RUN_METHODS = {"write", "execute", "execute_autocommit", "read", "read_dicts", "scalar", "stream"}
# Methods whose second positional argument is the model to validate into, not a parameter.
MODEL_METHODS = {"read", "stream"}


def _import_everything() -> None:
    for pkg_name in ("graphforge", "loaders"):
        pkg = importlib.import_module(pkg_name)
        for info in pkgutil.walk_packages(pkg.__path__, prefix=f"{pkg_name}."):
            if not info.name.endswith("__main__"):
                importlib.import_module(info.name)
    # Task families are registered on first use, and each loads its pattern query then.
    from graphforge.specs.families import load_families

    load_families()


def _python_files() -> list[Path]:
    return [p for d in SOURCE_DIRS for p in d.rglob("*.py")]


def _constants() -> dict[str, str]:
    """CONSTANT name -> query name, from every ``X = cypher.load("name")`` in the sources."""
    found: dict[str, str] = {}
    for path in _python_files():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                    and isinstance(node.value.func, ast.Attribute) and node.value.func.attr == "load"
                    and isinstance(node.value.func.value, ast.Name) and node.value.func.value.id == "cypher"
                    and node.value.args and isinstance(node.value.args[0], ast.Constant)):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        name = str(node.value.args[0].value)
                        assert found.get(target.id, name) == name, f"{target.id} names two queries"
                        found[target.id] = name
    return found


def test_every_query_file_is_loaded() -> None:
    _import_everything()
    assert sorted(cypher.loaded()) == cypher.all_query_files()


def test_every_call_site_passes_exactly_the_query_parameters() -> None:
    constants = _constants()
    queries = {name: cypher.load(name) for name in set(constants.values())}
    problems: list[str] = []
    used: set[str] = set()
    for path in _python_files():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in RUN_METHODS and node.args):
                continue
            first = node.args[0]
            const = (
                first.id
                if isinstance(first, ast.Name)
                else first.attr
                if isinstance(first, ast.Attribute)
                else None
            )
            if const not in constants:
                continue
            query = queries[constants[const]]
            used.add(query.name)
            where = f"{path.relative_to(REPO)}:{node.lineno}"
            if any(k.arg is None for k in node.keywords):
                problems.append(f"{where}: pass {query.name} parameters by name, not **kwargs")
                continue
            given = {k.arg for k in node.keywords if k.arg is not None}
            if node.func.attr == "write":
                given.add("rows")
            if given != set(query.params):
                problems.append(f"{where}: {query.name} uses {sorted(query.params)} but gets {sorted(given)}")
    assert not problems, "\n".join(problems)
    unused = set(queries) - used
    assert not unused, f"queries loaded but never run: {sorted(unused)}"


def test_parameters_ignore_comments_and_strings() -> None:
    text = "// uses $ghost\nMATCH (n {k: $key}) WHERE n.x = '$not_a_param' RETURN n"
    assert cypher.parameters_of(text) == {"key"}


CYPHER_WORDS = re.compile(r"\b(MATCH|MERGE|CREATE|UNWIND|RETURN|DETACH)\b")


@pytest.mark.parametrize("path", _python_files(), ids=lambda p: str(p.relative_to(REPO)))
def test_no_cypher_is_built_with_fstrings_or_format(path: Path) -> None:
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.JoinedStr):
            literal = "".join(
                v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str)
            )
            assert not CYPHER_WORDS.search(literal), f"{path}:{node.lineno}: f-string Cypher"
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format"
                and isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str)):
            assert not CYPHER_WORDS.search(node.func.value.value), f"{path}:{node.lineno}: .format() Cypher"


def test_package_version() -> None:
    assert graphforge.__version__


def _unordered_limits(text: str) -> list[str]:
    """Each ``LIMIT`` whose clause (from its WITH or RETURN) has no ORDER BY: the rows it keeps are whichever
    the planner meets first."""
    body = cypher.code_of(text)
    found = []
    for m in re.finditer(r"\bLIMIT\b", body):
        clause = re.split(r"\b(?:WITH|RETURN)\b", body[: m.start()])[-1]
        if not re.search(r"\bORDER\s+BY\b", clause):
            found.append(body[max(0, m.start() - 60): m.end() + 8].strip())
    return found


def test_the_unordered_limit_check_sees_one() -> None:
    found = _unordered_limits("MATCH (q) WITH DISTINCT q LIMIT 5 RETURN q.id ORDER BY q.id LIMIT 2")
    assert len(found) == 1 and "DISTINCT q LIMIT 5" in found[0]


@pytest.mark.parametrize("folder", ["families", "specs"])
def test_the_compiler_keeps_no_arbitrary_rows(folder: str) -> None:
    """A spec is a function of the files: a query that cuts its rows without an order (the briefing deck's
    5,000 quantities once) compiles different specs from two fresh graphs of the same workspace."""
    root = REPO / "cypher" / folder
    bad = {p.name: _unordered_limits(p.read_text()) for p in sorted(root.glob("*.cypher"))}
    assert {k: v for k, v in bad.items() if v} == {}

"""A loaded File carries a readable name (the base name of the path it was loaded under), so Neo4j Browser
can caption it; the same bytes under two names get the alphabetically first one whatever the load order;
a re-run changes nothing; and the migration names the File nodes of a graph loaded before names existed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import docx
import pytest

from graphforge.context import StageContext
from graphforge.graphdb import migrations
from graphforge.graphdb.graph import Graph
from graphforge.stages import load_workspace

pytestmark = pytest.mark.neo4j

ORDERS = "region,total\nNorth,12\nSouth,30\n"


def _cypher(graph: Graph, query: str, **params: object) -> list[dict[str, Any]]:
    return [r.data() for r in graph.driver.execute_query(query, params, database_=graph.database).records]


def _load(ctx: StageContext, root: Path, workspace_id: str) -> None:
    load_workspace.run(ctx, load_workspace.LoadWorkspaceParams(root=root, workspace_id=workspace_id, jobs=1,
                                                               use_llm_roles=False))


def _names(graph: Graph, workspace_id: str) -> dict[str, str | None]:
    rows = _cypher(graph, "MATCH (:Workspace {workspace_id: $w})-[c:CONTAINS]->(f:File) "
                          "RETURN c.path AS path, f.name AS name", w=workspace_id)
    return {r["path"]: r["name"] for r in rows}


def test_loaded_files_are_named_and_the_migration_names_old_ones(ctx: StageContext, graph: Graph,
                                                                 tmp_path: Path) -> None:
    first = tmp_path / "first"
    (first / "data").mkdir(parents=True)
    (first / "data" / "orders.csv").write_text(ORDERS, encoding="utf-8")
    (first / "notes.md").write_text("# Notes\n\nThe total is 42 across both regions.\n", encoding="utf-8")
    report = docx.Document()
    report.add_paragraph("Quarterly report: North 12, South 30.")
    report.save(str(first / "report.docx"))
    _load(ctx, first, "ws-first")
    assert _names(graph, "ws-first") == {"data/orders.csv": "orders.csv", "notes.md": "notes.md",
                                         "report.docx": "report.docx"}

    # The same bytes under another name in a second workspace: one File node, named by the first name in
    # alphabetical order, so the name does not depend on which workspace was loaded first.
    second = tmp_path / "second"
    second.mkdir()
    (second / "2024 orders.csv").write_text(ORDERS, encoding="utf-8")
    (second / "zz orders copy.csv").write_text(ORDERS + "East,7\n", encoding="utf-8")
    _load(ctx, second, "ws-second")
    assert _names(graph, "ws-second") == {"2024 orders.csv": "2024 orders.csv",
                                          "zz orders copy.csv": "zz orders copy.csv"}
    assert _names(graph, "ws-first")["data/orders.csv"] == "2024 orders.csv"
    # Loading the first workspace again (its files are already ingested: only their links are written)
    # neither renames nor duplicates anything.
    before = _cypher(graph, "MATCH (f:File) RETURN f.sha256 AS sha, f.name AS name ORDER BY sha")
    _load(ctx, first, "ws-first")
    assert _cypher(graph, "MATCH (f:File) RETURN f.sha256 AS sha, f.name AS name ORDER BY sha") == before
    assert len(before) == 4 and all(r["name"] for r in before)

    # A graph loaded before File names existed: the migration names every File that a workspace holds.
    _cypher(graph, "MATCH (f:File) REMOVE f.name")
    naming = [m for m in migrations.discover() if m.path.name.endswith("__set_file_names.cypher")]
    assert len(naming) == 1
    for statement in naming[0].statements:
        with graph.driver.session(database=graph.database) as session:
            session.run(statement).consume()  # auto-commit, as `db migrate` runs it
    assert _cypher(graph, "MATCH (f:File) RETURN f.sha256 AS sha, f.name AS name ORDER BY sha") == before

"""Whole-database chores: counts, data reset, schema reset."""

from __future__ import annotations

from pydantic import BaseModel

from graphforge.graphdb import cypher
from graphforge.graphdb.graph import Graph

COUNT_NODES_BY_LABEL = cypher.load("meta/count_nodes_by_label")
COUNT_RELATIONSHIPS_BY_TYPE = cypher.load("meta/count_relationships_by_type")
DELETE_DATA = cypher.load("meta/delete_data")
GET_CONSTRAINTS = cypher.load("meta/get_constraints")
GET_INDEXES = cypher.load("meta/get_indexes")
DELETE_CONSTRAINT = cypher.load("meta/delete_constraint")
DELETE_INDEX = cypher.load("meta/delete_index")
GET_SERVER_COMPONENTS = cypher.load("meta/get_server_components")
DELETE_MIGRATIONS = cypher.load("meta/delete_migrations")


class GraphCounts(BaseModel):
    nodes: dict[str, int]
    relationships: dict[str, int]

    @property
    def total_nodes(self) -> int:
        return sum(self.nodes.values())

    @property
    def total_relationships(self) -> int:
        return sum(self.relationships.values())


class ServerComponent(BaseModel):
    name: str
    version: str
    edition: str


def counts(graph: Graph) -> GraphCounts:
    """Nodes per label and relationships per type."""
    nodes = {r["label"]: r["count"] for r in graph.read_dicts(COUNT_NODES_BY_LABEL)}
    rels = {r["type"]: r["count"] for r in graph.read_dicts(COUNT_RELATIONSHIPS_BY_TYPE)}
    return GraphCounts(nodes=nodes, relationships=rels)


def server_component(graph: Graph) -> ServerComponent:
    return graph.read(GET_SERVER_COMPONENTS, ServerComponent)[0]


def delete_data(graph: Graph) -> int:
    """Delete every node but the migration records; returns how many were deleted."""
    rows = graph.execute_autocommit(DELETE_DATA)
    return int(rows[0]["written"]) if rows else 0


def drop_schema(graph: Graph) -> int:
    """Drop every constraint and index, and forget applied migrations (data must be gone first)."""
    constraints = [r["name"] for r in graph.read_dicts(GET_CONSTRAINTS)]
    for name in constraints:
        graph.execute_autocommit(DELETE_CONSTRAINT, name=name)
    indexes = [r["name"] for r in graph.read_dicts(GET_INDEXES)]
    for name in indexes:
        graph.execute_autocommit(DELETE_INDEX, name=name)
    graph.execute(DELETE_MIGRATIONS)
    return len(constraints) + len(indexes)

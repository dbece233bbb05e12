"""Spec compilation: templates per edge kind (no model), optional chat-model statement, fixed checks."""

from graphforge.specs.checks import leaks, recompute, spec_problems
from graphforge.specs.templates import GraphEdge, GraphFact, WorkspaceGraph, compile_template

__all__ = [
    "GraphEdge",
    "GraphFact",
    "WorkspaceGraph",
    "compile_template",
    "leaks",
    "recompute",
    "spec_problems",
]

"""Evidence graphs: extractors (rule-based, chat model) turn spans into facts; rules link files."""

from graphforge.evidence.base import (
    Extraction,
    Extractor,
    RejectedFact,
    WorkspaceSpan,
    recoverability_problem,
    verify,
)
from graphforge.evidence.links import cross_file_edges
from graphforge.evidence.rule_based import RuleBasedExtractor

__all__ = [
    "Extraction",
    "Extractor",
    "RejectedFact",
    "WorkspaceSpan",
    "RuleBasedExtractor",
    "cross_file_edges",
    "recoverability_problem",
    "verify",
]

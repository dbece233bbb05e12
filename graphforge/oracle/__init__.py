"""The graph oracle: a rule-based agent that solves compiled specs from the graph (labelled as an oracle)."""

from graphforge.oracle.agent import ORACLE_MODEL, ORACLE_SCAFFOLD, InjectKind, OracleRun, run_oracle

__all__ = ["ORACLE_MODEL", "ORACLE_SCAFFOLD", "InjectKind", "OracleRun", "run_oracle"]

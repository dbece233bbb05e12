"""CLI commands of the evaluation area (registered on the groups in graphforge.cli.common)."""

"""CLI commands of the judging area (registered on the groups in graphforge.cli.common)."""

"""CLI commands of the taxonomy area (registered on the groups in graphforge.cli.common)."""

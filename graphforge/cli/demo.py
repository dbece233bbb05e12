"""CLI commands of the demo area (registered on the groups in graphforge.cli.common)."""

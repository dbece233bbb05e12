"""CLI commands of the workspace area (registered on the groups in graphforge.cli.common)."""

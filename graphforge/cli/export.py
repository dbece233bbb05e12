"""CLI commands of the export area (registered on the groups in graphforge.cli.common)."""

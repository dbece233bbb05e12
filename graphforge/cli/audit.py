"""CLI commands of the audit area (registered on the groups in graphforge.cli.common)."""

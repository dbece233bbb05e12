"""CLI commands of the audit_export area (registered on the groups in graphforge.cli.common)."""

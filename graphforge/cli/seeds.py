"""CLI commands of the seeds area (registered on the groups in graphforge.cli.common)."""

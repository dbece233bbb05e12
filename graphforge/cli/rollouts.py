"""CLI commands of the rollouts area (registered on the groups in graphforge.cli.common)."""

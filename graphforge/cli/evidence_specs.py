"""CLI commands of the evidence_specs area (registered on the groups in graphforge.cli.common)."""

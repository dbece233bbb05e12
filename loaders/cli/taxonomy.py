"""`graphforge load ...` commands of the taxonomy area."""

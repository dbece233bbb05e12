"""`graphforge load ...` commands of the workspace area."""

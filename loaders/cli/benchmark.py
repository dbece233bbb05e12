"""`graphforge load ...` commands of the benchmark area."""

"""`graphforge load ...` commands of the trajectories area."""

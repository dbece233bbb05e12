"""Persistence of the pipeline's records in the graph: task specs (``specs``: write, read back with full
fidelity, the agent's view, anchors for judges) and trajectories with their judgments (``trajectories``).
"""

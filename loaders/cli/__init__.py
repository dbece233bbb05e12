"""CLI commands that read external sources (O*NET, workspaces, trajectories, benchmarks) and the demo.

graphforge never imports loaders; it discovers this package through the ``graphforge.cli`` entry
point declared in pyproject.toml, and importing it registers the commands on graphforge's groups.
"""

from loaders.cli import benchmark, demo, taxonomy, trajectories, workspace  # noqa: F401

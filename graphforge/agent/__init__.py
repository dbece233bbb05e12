"""The built-in agent loop over an OpenAI-compatible chat model, its tools and its Python sandbox.

from graphforge.agent import run_rollout
outcome = run_rollout(chat_model(settings), view, workspace_dir, run_dir, sample_index=0)
outcome.trajectory  # graphforge.models.trajectory.Trajectory, ready for store.save_trajectories
"""

from graphforge.agent.loop import (
    SCAFFOLD,
    AgentConfig,
    RolloutOutcome,
    arun_rollout,
    collect_deliverables,
    run_dir_name,
    run_rollout,
    task_prompt,
    trajectory_id,
)
from graphforge.agent.sandbox import (
    SandboxLimits,
    SandboxResult,
    SandboxUnavailable,
    run_python,
    sandbox_problem,
)
from graphforge.agent.tools import TOOL_NAMES, TOOL_SCHEMAS, ToolBox, read_as_text

__all__ = [
    "SCAFFOLD",
    "TOOL_NAMES",
    "TOOL_SCHEMAS",
    "AgentConfig",
    "RolloutOutcome",
    "SandboxLimits",
    "SandboxResult",
    "SandboxUnavailable",
    "ToolBox",
    "arun_rollout",
    "collect_deliverables",
    "read_as_text",
    "run_dir_name",
    "run_python",
    "run_rollout",
    "sandbox_problem",
    "task_prompt",
    "trajectory_id",
]

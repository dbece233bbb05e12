"""Agent logs in the formats other scaffolds write, generated for tests from their documented shapes.

Each writer produces one file (or folder) the way the tool itself lays it out:
- SWE-agent ``<instance>.traj``: ``json.dumps(indent=2)`` of ``{"trajectory", "history", "info",
  "replay_config", "environment"}`` (history items with role/content/message_type/agent, tool calls
  in OpenAI shape, tool results naming ``tool_call_ids``; ``info.model_stats``);
- OpenAI messages as a JSON array, as ``{"messages": ...}`` and one message per JSONL line;
- tau-bench ``results/*.json`` (a list of ``{"task_id", "reward", "info", "traj", "trial"}``) and
  tau2-bench (``{"info", "tasks", "simulations"}``, flat tool calls, tool results carrying ``id``);
- OpenHands evaluation ``output.jsonl`` (one instance per line with ``history``; one line in the old
  ``[action, observation]`` pair form) and a session's ``events/`` folder (``0.json``, ``1.json``...).
Broken variants reproduce what real runs leave behind (files cut off mid-write, runs that never
reached the model).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SYSTEM = "You are a helpful assistant that can interact with a computer to solve tasks."
TASK = "Reconcile the Q3 ledger against the bank statement and write recon.md."


def _call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def openai_messages() -> list[dict[str, Any]]:
    """A tool-using conversation in the Chat Completions shape."""
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": TASK},
        {
            "role": "assistant",
            "content": "Let me look at the ledger first.",
            "tool_calls": [_call("call_1", "read_file", {"path": "ledger.csv"})],
        },
        {
            "role": "tool",
            "tool_call_id": "call_1",
            "name": "read_file",
            "content": "date,amount\n07-01,120.50",
        },
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [_call("call_2", "write_file", {"path": "recon.md", "text": "# Q3\nBalanced."})],
        },
        {"role": "tool", "tool_call_id": "call_2", "name": "write_file", "content": "written"},
        {"role": "assistant", "content": "recon.md is written: the ledger balances."},
    ]


def write_openai_array(path: Path) -> Path:
    path.write_text(json.dumps(openai_messages(), indent=2))
    return path


def write_openai_object(path: Path) -> Path:
    record = {
        "id": "recon-object",
        "model": "gpt-4.1",
        "messages": openai_messages(),
        "usage": {"prompt_tokens": 900, "completion_tokens": 120},
    }
    path.write_text(json.dumps(record, indent=2))
    return path


def write_openai_message_lines(path: Path) -> Path:
    path.write_text("".join(json.dumps(m) + "\n" for m in openai_messages()))
    return path


def swe_agent_run(function_calling: bool = True, steps: int = 12) -> dict[str, Any]:
    """A SWE-agent 1.x run: history as the model saw it, trajectory steps, info and replay config."""
    history: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM, "agent": "main", "message_type": "system_prompt"},
        {
            "role": "user",
            "content": "Demonstration: fix a typo in README.",
            "agent": "main",
            "message_type": "demonstration",
            "is_demo": True,
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "text": "<uploaded_files>\n/testbed\n</uploaded_files>\n"
                    "The sum in totals.py is off by one.",
                }
            ],
            "agent": "main",
            "message_type": "user",
        },
    ]
    trajectory = []
    for i in range(steps):
        command = f"sed -n '{i + 1},{i + 20}p' /testbed/totals.py" if i < steps - 1 else "submit"
        thought = f"Step {i}: I need to look at lines {i + 1} onwards."
        output = f"line {i + 1}: total = sum(values) + {i}" if i < steps - 1 else "diff --git a/totals.py"
        if function_calling:
            call_id = f"toolu_{i:02d}"
            history.append(
                {
                    "role": "assistant",
                    "content": thought,
                    "thought": thought,
                    "action": command,
                    "agent": "main",
                    "message_type": "action",
                    "tool_calls": [_call(call_id, "bash", {"command": command})],
                }
            )
            history.append(
                {
                    "role": "tool",
                    "content": [{"type": "text", "text": f"OBSERVATION:\n{output}"}],
                    "agent": "main",
                    "message_type": "observation",
                    "tool_call_ids": [call_id],
                }
            )
        else:
            history.append(
                {
                    "role": "assistant",
                    "content": f"{thought}\n\n```\n{command}\n```",
                    "thought": thought,
                    "action": command,
                    "agent": "main",
                    "message_type": "action",
                }
            )
            history.append(
                {
                    "role": "user",
                    "content": f"OBSERVATION:\n{output}",
                    "agent": "main",
                    "message_type": "observation",
                }
            )
        trajectory.append(
            {
                "action": command,
                "observation": output,
                "response": thought,
                "thought": thought,
                "execution_time": 0.05,
                "state": {"working_dir": "/testbed"},
                "query": [],
                "extra_info": {},
            }
        )
    replay = {
        "env": {"repo": {"path": "/testbed"}},
        "agent": {"model": {"name": "claude-3-7-sonnet-20250219", "per_instance_cost_limit": 3.0}},
    }
    return {
        "trajectory": trajectory,
        "history": history,
        "info": {
            "swe_agent_version": "1.0.1",
            "exit_status": "submitted",
            "submission": "diff --git a/totals.py",
            "model_stats": {
                "instance_cost": 0.42,
                "tokens_sent": 48210,
                "tokens_received": 1630,
                "api_calls": steps,
            },
        },
        "replay_config": json.dumps(replay),
        "environment": "main",
    }


def write_swe_agent(path: Path, function_calling: bool = True) -> Path:
    path.write_text(json.dumps(swe_agent_run(function_calling), indent=2))
    return path


def _tau_traj(task: int) -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": "# Retail agent policy\nAuthenticate the user before any change."},
        {"role": "user", "content": f"Hi, I want to return order #W{task:07d}."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [_call(f"call_t{task}", "get_order_details", {"order_id": f"#W{task:07d}"})],
        },
        {
            "role": "tool",
            "tool_call_id": f"call_t{task}",
            "name": "get_order_details",
            "content": json.dumps({"order_id": f"#W{task:07d}", "status": "delivered"}),
        },
        {"role": "assistant", "content": "The order is delivered; I can start the return."},
    ]


def write_tau_bench(path: Path) -> Path:
    results = [
        {
            "task_id": task,
            "reward": 1.0 if task % 2 else 0.0,
            "info": {"task": {"user_id": f"user_{task}", "actions": []}, "user_cost": 0.01},
            "traj": _tau_traj(task),
            "trial": 0,
        }
        for task in (3, 4)
    ]
    path.write_text(json.dumps(results, indent=2))
    return path


def write_tau2(path: Path) -> Path:
    messages = [
        {"role": "assistant", "content": "Hi! How can I help you today?", "turn_idx": 0},
        {"role": "user", "content": "My phone has no signal.", "turn_idx": 1},
        {
            "role": "assistant",
            "content": None,
            "turn_idx": 2,
            "tool_calls": [
                {
                    "id": "t2_1",
                    "name": "get_customer_by_phone",
                    "arguments": {"phone": "555-0100"},
                    "requestor": "assistant",
                }
            ],
        },
        {
            "role": "tool",
            "id": "t2_1",
            "content": '{"customer_id": "C100"}',
            "requestor": "assistant",
            "turn_idx": 3,
            "error": False,
        },
        {
            "role": "user",
            "content": None,
            "turn_idx": 4,
            "tool_calls": [
                {"id": "u_1", "name": "toggle_airplane_mode", "arguments": {}, "requestor": "user"}
            ],
        },
        {"role": "tool", "id": "u_1", "content": "Airplane mode is off.", "requestor": "user", "turn_idx": 5},
        {"role": "assistant", "content": "Signal should be back now.", "turn_idx": 6},
    ]
    data = {
        "info": {"agent_info": {"implementation": "llm_agent", "llm": "gpt-4.1-mini"}},
        "tasks": [{"id": "telecom_1"}],
        "simulations": [
            {
                "id": "sim-0001",
                "task_id": "telecom_1",
                "trial": 0,
                "messages": messages,
                "reward_info": {"reward": 1.0},
                "agent_cost": 0.003,
            }
        ],
    }
    path.write_text(json.dumps(data, indent=2))
    return path


def _openhands_events(instance: str) -> list[dict[str, Any]]:
    response = {
        "id": f"resp-{instance}",
        "model": "litellm_proxy/claude-sonnet-4",
        "usage": {"prompt_tokens": 2100, "completion_tokens": 75},
        "choices": [
            {
                "message": {
                    "tool_calls": [_call(f"tc-{instance}", "execute_bash", {"command": "ls /workspace"})]
                }
            }
        ],
    }
    meta = {
        "function_name": "execute_bash",
        "tool_call_id": f"tc-{instance}",
        "model_response": response,
        "total_calls_in_response": 1,
    }
    return [
        {
            "id": 0,
            "timestamp": "2025-06-01T10:00:00",
            "source": "agent",
            "message": SYSTEM,
            "action": "system",
            "args": {
                "content": SYSTEM,
                "tools": [{"type": "function", "function": {"name": "execute_bash"}}],
            },
        },
        {
            "id": 1,
            "timestamp": "2025-06-01T10:00:01",
            "source": "user",
            "message": TASK,
            "action": "message",
            "args": {"content": TASK},
        },
        {
            "id": 2,
            "timestamp": "2025-06-01T10:00:05",
            "source": "agent",
            "message": "Running command: ls",
            "action": "run",
            "tool_call_metadata": meta,
            "args": {"command": "ls /workspace", "thought": "First the files.", "blocking": False},
        },
        {
            "id": 3,
            "timestamp": "2025-06-01T10:00:06",
            "source": "agent",
            "message": "Command finished",
            "observation": "run",
            "cause": 2,
            "tool_call_metadata": meta,
            "content": "ledger.csv",
            "extras": {"command": "ls /workspace", "metadata": {"exit_code": 0}},
        },
        {
            "id": 4,
            "timestamp": "2025-06-01T10:00:09",
            "source": "agent",
            "message": "Done.",
            "action": "finish",
            "args": {"final_thought": "The workspace holds the ledger.", "outputs": {}},
        },
    ]


def write_openhands_output(path: Path) -> Path:
    new = {
        "instance_id": "acme__ledger-101",
        "instruction": TASK,
        "history": _openhands_events("a"),
        "metadata": {
            "agent_class": "CodeActAgent",
            "llm_config": {"model": "litellm_proxy/claude-sonnet-4"},
            "max_iterations": 50,
        },
        "metrics": {"accumulated_cost": 0.021},
        "test_result": {"git_patch": ""},
        "error": None,
    }
    events = _openhands_events("b")
    old_pairs = [[events[2], events[3]], [events[4], {}]]  # releases before 0.10: [action, observation]
    old = {
        "instance_id": "acme__ledger-102",
        "instruction": TASK,
        "history": old_pairs,
        "metadata": {"agent_class": "CodeActAgent", "llm_config": {"model": "gpt-4o"}},
        "metrics": {
            "accumulated_cost": 0.01,
            "accumulated_token_usage": {"prompt_tokens": 3000, "completion_tokens": 90},
        },
        "error": None,
    }
    path.write_text(json.dumps(new) + "\n" + json.dumps(old) + "\n")
    return path


def write_openhands_events_folder(session: Path) -> Path:
    folder = session / "events"
    folder.mkdir(parents=True)
    for event in _openhands_events("c"):
        (folder / f"{event['id']}.json").write_text(json.dumps(event))
    return folder


def cut(path: Path, keep: float = 0.6) -> Path:
    """The file as a crashed writer leaves it: its first ``keep`` fraction."""
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])
    return path

"""Which files' first pages a conversation has read (the held turn's grammar reads them again only past
the first page)."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from graphforge.agent.loop import first_pages_read


def _read(args: dict[str, object]) -> AIMessage:
    # the agent loop gives every turn's call the id call_0
    return AIMessage("", tool_calls=[{"name": "read_file", "args": args, "id": "call_0"}])


def test_first_pages_read_counts_successful_reads_from_the_start_only() -> None:
    messages = [
        HumanMessage("task"),
        _read({"path": "a.csv"}), ToolMessage("[page: a.csv] ...", tool_call_id="call_0"),
        _read({"path": "b.pdf", "offset": 1200}), ToolMessage("[page: b.pdf] ...", tool_call_id="call_0"),
        _read({"path": "c.md", "offset": 0}), ToolMessage("[page: c.md] ...", tool_call_id="call_0"),
        _read({"path": "list_files"}), ToolMessage("ERROR: no file 'list_files'", tool_call_id="call_0"),
    ]
    assert first_pages_read(messages) == {"a.csv", "c.md"}


def test_a_failed_read_is_not_marked_read_by_an_earlier_success_with_the_same_id() -> None:
    """Results pair with the reply right before them: a later failure under the same id does not make
    the earlier read fail, nor the earlier success the later read succeed."""
    messages = [
        _read({"path": "a.csv"}), ToolMessage("[page: a.csv] ...", tool_call_id="call_0"),
        _read({"path": "gone.csv"}), ToolMessage("ERROR: no file 'gone.csv'", tool_call_id="call_0"),
    ]
    assert first_pages_read(messages) == {"a.csv"}
    assert first_pages_read(messages[2:]) == set()
    assert first_pages_read(messages[:2]) == {"a.csv"}

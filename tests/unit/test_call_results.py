"""Pairing each reply's tool calls with the results that answer them (training windows' failed replies,
export verify's replay): the tool messages right after the reply, by id within that turn."""

from __future__ import annotations

from typing import Any

from graphforge.llm.protocol import call_results


def _reply(path: str) -> dict[str, Any]:
    # the agent loop gives every turn's call the id call_0
    call = {"name": "read_file", "arguments": f'{{"path": "{path}"}}'}
    return {"role": "assistant", "content": "", "tool_calls": [{"id": "call_0", "type": "function",
                                                                "function": call}]}


def _result(text: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": "call_0", "content": text}


def test_a_reply_s_results_are_the_tool_messages_right_after_it() -> None:
    messages = [{"role": "user", "content": "task"},
                _reply("a.csv"), _result("[page: a.csv] ..."),
                _reply("gone.csv"), _result("ERROR: no file 'gone.csv'")]
    assert call_results(messages) == [{}, {"call_0": "[page: a.csv] ..."}, {},
                                      {"call_0": "ERROR: no file 'gone.csv'"}, {}]


def test_a_later_result_under_the_same_id_does_not_answer_an_earlier_call() -> None:
    """Matched over the whole conversation, the first read would take the second's error (and the other
    way round)."""
    messages = [_reply("a.csv"), _result("[page: a.csv] ..."), _reply("gone.csv"), _result("ERROR: gone")]
    assert call_results(messages)[0] == {"call_0": "[page: a.csv] ..."}
    assert call_results(messages)[2] == {"call_0": "ERROR: gone"}
    assert call_results(messages[:1]) == [{}]  # a reply not yet answered

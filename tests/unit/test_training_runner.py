"""The training runner's handling of chat templates that would double-encode tool-call arguments."""

from __future__ import annotations

import json

from datasets import Dataset

from training import tiny
from training.runner import double_encodes_arguments, rendered_with_argument_objects

# What Llama 3.1 / Qwen 2.5 templates do: ``| tojson`` on the arguments whatever their type.
ALWAYS_TOJSON = (
    "{%- for message in messages %}<|{{ message['role'] }}|>"
    "{% if message['content'] %}{{ message['content'] }}{% endif %}"
    "{%- for call in message['tool_calls'] or [] %}<|call|>{\"name\": \"{{ call['function']['name'] }}\", "
    "\"arguments\": {{ call['function']['arguments'] | tojson }}}{% endfor %}<|end|>\n{%- endfor %}"
)
ROW = {
    "messages": [
        {"role": "user", "content": "Sum column B.", "tool_calls": None, "tool_call_id": None, "name": None},
        {"role": "assistant", "content": None, "tool_call_id": None, "name": None, "tool_calls": [
            {"id": "c1", "type": "function",
             "function": {"name": "read_file", "arguments": '{"path": "a.csv"}'}}]},
        {"role": "tool", "content": "a,b", "tool_call_id": "c1", "tool_calls": None, "name": None},
        {"role": "assistant", "content": "The total is 3.", "tool_calls": None, "tool_call_id": None,
         "name": None},
    ],
    "tools": "[]",
}


def _tokenizer(template: str) -> object:
    tok = tiny.build_tokenizer(tiny.row_texts([ROW]), vocab_size=300)
    tok.chat_template = template
    return tok


def test_a_tojson_template_gets_argument_objects_not_escaped_strings() -> None:
    tok = _tokenizer(ALWAYS_TOJSON)
    assert double_encodes_arguments(tok)
    plain = tok.apply_chat_template(ROW["messages"], tokenize=False)  # type: ignore[attr-defined]
    assert '\\"path\\"' in plain  # what training would have seen
    rendered = rendered_with_argument_objects(Dataset.from_list([ROW]), tok)
    text = rendered[0]["text"]
    assert rendered.column_names == ["text"]
    assert '"arguments": {"path": "a.csv"}' in text and '\\"' not in text
    assert json.loads(text.split('"arguments": ')[1].split("}}")[0] + "}") == {"path": "a.csv"}


def test_a_template_that_prints_strings_verbatim_is_left_alone() -> None:
    assert not double_encodes_arguments(_tokenizer(tiny.CHAT_TEMPLATE))

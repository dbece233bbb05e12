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


# A template without tool support (SmolLM2-135M-Instruct's, reduced to its shape): concatenates content.
CONTENT_ONLY = (
    "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + "
    "'<|im_end|>\\n' }}{% endfor %}"
)


def test_a_template_without_tool_support_gets_calls_as_text() -> None:
    from training.runner import renders_tool_calls, tool_calls_as_text

    tok = _tokenizer(CONTENT_ONLY)
    assert not renders_tool_calls(tok)
    assert renders_tool_calls(_tokenizer(tiny.CHAT_TEMPLATE))
    row = tool_calls_as_text(ROW)
    text = tok.apply_chat_template(row["messages"], tokenize=False)  # type: ignore[attr-defined]
    call = text.split("<tool_call>\n")[1].split("\n</tool_call>")[0]
    assert json.loads(call) == {"name": "read_file", "arguments": {"path": "a.csv"}}
    assert "<|im_start|>tool\na,b<|im_end|>" in text and "The total is 3." in text
    roles = [m["role"] for m in row["messages"]]
    assert roles == ["user", "assistant", "tool", "assistant"]  # an empty tool list adds no system turn


def test_the_tool_list_goes_into_the_system_message() -> None:
    from training.runner import tool_calls_as_text

    tools = [{"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}}]
    row = tool_calls_as_text({**ROW, "tools": json.dumps(tools),
                              "messages": [{"role": "system", "content": "Be careful."}, *ROW["messages"]]})
    system = row["messages"][0]
    assert system["role"] == "system" and system["content"].startswith("Be careful.")
    listed = system["content"].split("<tools>\n")[1].split("\n</tools>")[0]
    assert json.loads(listed) == tools

"""GraphForge's tool-call chat template and the parser that reads calls back out of a reply.

The template is rendered by llama-cpp-python's own Jinja formatter (what its server does with a GGUF that
carries the template), so a test fails if the served prompt loses a tool result or a call.
"""

from __future__ import annotations

import json
import re
from typing import Any

import jinja2
import pytest
from jinja2.sandbox import ImmutableSandboxedEnvironment

from graphforge.llm.protocol import parse_assistant, to_openai
from graphforge.llm.text_tools import (
    CHAT_TEMPLATE,
    TRAINING_TEMPLATE,
    call_grammar,
    call_text,
    render,
    split_calls,
    turn_grammar,
)

TOOLS = [{"type": "function", "function": {
    "name": "read_file", "description": "Read one file of the workspace",
    "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}}]


def _call(i: int, name: str, args: dict[str, object]) -> dict[str, Any]:
    return {"id": f"c{i}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


CONVERSATION: list[dict[str, Any]] = [
    {"role": "system", "content": "You prepare budget summaries."},
    {"role": "user", "content": "Total the FY2024 column of budget.csv."},
    {"role": "assistant", "content": "I will read the budget first.",
     "tool_calls": [_call(0, "read_file", {"path": "budget.csv"})]},
    {"role": "tool", "tool_call_id": "c0", "content": "line,FY2024\nstaff,41250\ntravel,3810"},
    {"role": "assistant", "content": None, "tool_calls": [
        _call(1, "read_file", {"path": "notes </tool_call> draft.md"}),
        _call(2, "write_file", {"path": "total.md", "content": "Total: 45060 {\"x\": 1}"})]},
    {"role": "tool", "tool_call_id": "c1", "content": "superseded draft"},
    {"role": "tool", "tool_call_id": "c2", "content": "wrote total.md"},
    {"role": "assistant", "content": "The FY2024 total is 45060."},
]


def served_prompt(messages: list[dict[str, Any]], generation: bool = False) -> str:
    return render(messages, TOOLS, add_generation_prompt=generation)


def assistant_turns(prompt: str) -> list[str]:
    return [part.split("<|im_end|>")[0] for part in prompt.split("<|im_start|>assistant\n")[1:]]


def test_the_served_prompt_shows_every_tool_result_and_the_tool_list() -> None:
    prompt = served_prompt(CONVERSATION)
    for text in ("line,FY2024\nstaff,41250\ntravel,3810", "superseded draft", "wrote total.md",
                 '"name": "read_file"', "Read one file of the workspace"):
        assert text in prompt, text
    # One turn per message, in order, each closed.
    assert prompt.count("<|im_start|>") == len(CONVERSATION) == prompt.count("<|im_end|>")
    assert prompt.index("41250") < prompt.index("superseded draft") < prompt.index("45060.")


def test_each_served_assistant_turn_parses_back_to_its_prose_and_calls() -> None:
    turns = assistant_turns(served_prompt(CONVERSATION))
    sent = [m for m in CONVERSATION if m["role"] == "assistant"]
    assert len(turns) == len(sent)
    for text, message in zip(turns, sent, strict=True):
        prose, calls = split_calls(text)
        assert prose == (message["content"] or "")
        expected = [(c["function"]["name"], json.loads(c["function"]["arguments"]))
                    for c in message.get("tool_calls") or []]
        assert [(c.name, c.args) for c in calls] == expected
        assert all(c.error is None for c in calls)


def test_the_prompt_does_not_depend_on_the_renderer_whitespace_settings() -> None:
    # transformers renders chat templates with trim_blocks/lstrip_blocks, plain Jinja without them.
    rendered = set()
    for trim in (True, False):
        env = ImmutableSandboxedEnvironment(trim_blocks=trim, lstrip_blocks=trim, undefined=jinja2.Undefined)
        env.filters["tojson"] = lambda value: json.dumps(value, ensure_ascii=False)
        rendered.add(env.from_string(CHAT_TEMPLATE).render(messages=CONVERSATION, tools=TOOLS,
                                                            add_generation_prompt=True))
    assert rendered == {served_prompt(CONVERSATION, generation=True)}
    assert next(iter(rendered)).endswith("<|im_start|>assistant\n")


def test_a_conversation_without_a_system_message_still_lists_the_tools() -> None:
    prompt = served_prompt(CONVERSATION[1:2], generation=True)
    assert prompt.startswith("<|im_start|>system\n") and "- read_file(path: string)" in prompt


def test_tools_are_listed_as_signatures_not_schemas() -> None:
    tools = [*TOOLS, {"type": "function", "function": {
        "name": "list_files", "description": "List the files",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": []}}}]
    system = render(CONVERSATION[:1], tools).split("<|im_end|>")[0]
    assert "- read_file(path: string) - Read one file of the workspace\n" in system
    assert "- list_files(path?: string) - List the files\n" in system  # optional: marked
    assert '"properties"' not in system and '"type": "function"' not in system


def trained_text(conversation: list[dict[str, Any]]) -> tuple[str, str]:
    """(the text the training template prints, the part of it the loss falls on), by a tokenizer built on
    the served prompt."""
    from training import tiny

    tok = tiny.build_tokenizer([served_prompt(CONVERSATION)], vocab_size=300)
    tok.chat_template = TRAINING_TEMPLATE
    printed = tok.apply_chat_template(conversation, tools=TOOLS, tokenize=False)
    out = tok.apply_chat_template(conversation, tools=TOOLS, tokenize=True, return_dict=True,
                                  return_assistant_tokens_mask=True)
    ids = [t for t, m in zip(out["input_ids"], out["assistant_masks"], strict=True) if m]
    return str(printed), str(tok.decode(ids))


def test_the_training_template_prints_the_served_text_and_marks_only_the_replies() -> None:
    text = served_prompt(CONVERSATION)
    printed, trained = trained_text(CONVERSATION)
    assert printed == text
    # Every reply with its end marker (so the model learns to stop), nothing of the prompt or the results.
    assert trained == "".join(turn + "<|im_end|>" for turn in assistant_turns(text))
    assert "41250" not in trained and "Total the FY2024" not in trained


@pytest.mark.parametrize(("body", "error"), [
    ("{bad json", "not JSON"),
    ('{"name": "read_file", "arguments": [1]}', "not a JSON object"),
    ('{"arguments": {}}', "a call is"),
    ('{"name": "read_file", "arguments": "{\\"path\\": "}', "not JSON"),
])
def test_a_malformed_call_is_kept_with_its_error(body: str, error: str) -> None:
    prose, calls = split_calls(f"Reading now.\n<tool_call>\n{body}\n</tool_call>")
    assert prose == "Reading now." and len(calls) == 1
    assert calls[0].args is None and error in (calls[0].error or "")


def test_a_reply_without_calls_is_unchanged() -> None:
    text = "The total is 45060; see <b>total.md</b>."
    assert split_calls(text) == (text, [])


def test_the_chat_client_reads_calls_written_as_text_and_sends_them_back_structured() -> None:
    reply = parse_assistant({"role": "assistant", "content": (
        'I will read it.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a.csv"}}\n</tool_call>'
        '\n<tool_call>\n{"name": "read_file", "arguments": {"path": </tool_call>')})
    assert reply.content == "I will read it."
    assert [(c["name"], c["args"], c["id"]) for c in reply.tool_calls] == [("read_file", {"path": "a.csv"},
                                                                          "call_0")]
    assert [c["id"] for c in reply.invalid_tool_calls] == ["call_1"]
    sent = to_openai(reply)
    assert [c["id"] for c in sent["tool_calls"]] == ["call_0", "call_1"]
    # A server that parses calls itself is read as before: the text is not searched again.
    structured = parse_assistant({"role": "assistant", "content": "<tool_call>{}</tool_call>", "tool_calls": [
        {"id": "x", "type": "function", "function": {"name": "list_files", "arguments": "{}"}}]})
    assert [c["name"] for c in structured.tool_calls] == ["list_files"] and not structured.invalid_tool_calls


def test_a_context_only_reply_is_printed_but_not_trained() -> None:
    conversation = [dict(m) for m in CONVERSATION]
    conversation[2]["context_only"] = True  # the first reply, repeated as a later window's opening
    text = served_prompt(CONVERSATION)
    printed, trained = trained_text(conversation)
    assert printed == text
    assert trained == "".join(turn + "<|im_end|>" for turn in assistant_turns(text)[1:])


@pytest.mark.parametrize(("name", "fixed", "free", "value"), [
    ("write_file", {"path": "memo ü.md"}, "content", '# Memo\n"quoted" \\ and ü'),
    ("run_python", {}, "code", "print('a')\nprint(\"b\")"),
])
def test_the_forced_call_text_is_the_served_text_of_that_call(
    name: str, fixed: dict[str, str], free: str, value: str
) -> None:
    """The final write's grammar fixes every character around the free argument: they are the text the
    served template prints for that call, so a model held to it writes the form it was trained on."""
    call = _call(0, name, {**fixed, free: value})
    (turn,) = assistant_turns(served_prompt([{"role": "user", "content": "go"},
                                             {"role": "assistant", "content": None, "tool_calls": [call]}]))
    before, after = call_text(name, fixed, free)
    assert turn == before + json.dumps(value)[1:-1] + after
    grammar = call_grammar(name, fixed, free)
    assert grammar.startswith(f"root ::= {json.dumps(before)} chars {json.dumps(after)}\n")
    from llama_cpp import LlamaGrammar  # the server's own grammar parser (render above needs it too)

    LlamaGrammar.from_string(grammar)
    # with the reply's token budget, the string holds at most the budget's characters less the fixed text
    bounded = call_grammar(name, fixed, free, max_tokens=512)
    assert "\nchars ::= char*\n" in grammar
    assert f"\nchars ::= char{{0,{512 - len(before) - len(after)}}}\n" in bounded
    LlamaGrammar.from_string(bounded)


_GBNF_TOKEN = re.compile(r'\s*("(?:[^"\\]|\\.)*"|\[(?:[^\]\\]|\\.)*\]|\{\d+,\d+\}|[A-Za-z0-9_]+|[()|?*+])')


def _gbnf_regex(grammar: str) -> re.Pattern[str]:
    """A depth-bounded GBNF grammar (no recursion) read as one Python regular expression: literals are
    JSON-style quoted strings, classes and ``{m,n}`` read the same in both, a rule name is its body. The
    test's own reading of the grammar, so the sentences it accepts are checked apart from llama.cpp."""
    rules = dict(line.split(" ::= ", 1) for line in grammar.strip().splitlines())

    def body(name: str) -> str:
        parts = []
        for token in _GBNF_TOKEN.findall(rules[name]):
            if token.startswith('"'):
                parts.append(re.escape(json.loads(token)))
            elif token == "(":
                parts.append("(?:")
            elif token.startswith("[") or token[0] in "){|?*+":
                parts.append(token)
            else:
                parts.append(f"(?:{body(token)})")
        return "".join(parts)

    return re.compile(body("root"), re.S)


@pytest.mark.parametrize(("document", "held"), [
    ('{"documents": [{"file": "a.pdf", "pages": 3, "replaces": null}]}', True),
    (json.dumps({"records": [{"file": "b.xlsx", "final": True, "rate": -0.25}]}, indent=2), True),
    ('[{"a": 1}, {"b": [1, 2]}]', True),
    ('{"replaces" ""v4.3/a.pdf"}', False),  # run 17b's slip: the colon lost
    ('{"a": 1', False),  # not closed
    ("data/top-down-2023-12-15.csv", False),  # a path, not a document (run 17b's base)
    ('"only a string"', False),  # a file of records is an object or an array
    ('{"a": [[[1]]]}', False),  # four containers deep
    ("[" + ", ".join(["1"] * 17) + "]", False),  # seventeen values in one array
    ('{"a": "' + "x" * 161 + '"}', False),  # a string of 161 characters
])
def test_a_json_deliverable_s_forced_write_holds_a_json_document(document: str, held: bool) -> None:
    """For a ``.json`` deliverable the forced write's string, decoded, is a JSON object or array within
    the grammar's bounds: llama.cpp parses the grammar, and the call text of each document is or is not
    one of its sentences."""
    grammar = call_grammar("write_file", {"path": "records.json"}, "content", max_tokens=1024,
                           json_document=True)
    from llama_cpp import LlamaGrammar

    LlamaGrammar.from_string(grammar)
    before, after = call_text("write_file", {"path": "records.json"}, "content")
    sentence = before + json.dumps(document)[1:-1] + after
    assert bool(_gbnf_regex(grammar).fullmatch(sentence)) is held
    if held:
        json.loads(document)  # what the grammar holds, Python reads
    # the plain grammar takes any string: the same reading of it accepts every one of these documents
    plain = call_grammar("write_file", {"path": "records.json"}, "content", 1024)
    assert _gbnf_regex(plain).fullmatch(sentence)


def test_a_json_document_s_strings_are_bounded_by_the_reply_budget() -> None:
    """A budget smaller than the string bound shortens every string to the characters left."""
    before, after = call_text("write_file", {"path": "r.json"}, "content")
    budget = len(before) + len(after) + 5
    grammar = call_grammar("write_file", {"path": "r.json"}, "content", budget, json_document=True)
    pattern = _gbnf_regex(grammar)
    assert pattern.fullmatch(before + json.dumps('{"a": "12345"}')[1:-1] + after)
    assert not pattern.fullmatch(before + json.dumps('{"a": "123456"}')[1:-1] + after)


FILES = ["budget.csv", "reports/q1 \"draft\".pdf", "reports/q2.xlsx"]


def _turn(content: str | None, calls: list[tuple[str, dict[str, object]]]) -> str:
    """An assistant turn as the served template prints it."""
    message = {"role": "assistant", "content": content,
               "tool_calls": [_call(i, n, a) for i, (n, a) in enumerate(calls)] or None}
    (turn,) = assistant_turns(served_prompt([{"role": "user", "content": "go"}, message]))
    return turn


@pytest.mark.parametrize(("content", "calls", "held"), [
    ("I will read the budget first.", [("read_file", {"path": "budget.csv"})], True),
    (None, [("read_file", {"path": 'reports/q1 "draft".pdf', "offset": 1200})], True),
    ("Listing the reports.", [("list_files", {"path": "reports"})], True),
    (None, [("list_files", {})], True),
    ("Done: the totals are in total.md.", [], True),
    (None, [("write_file", {"path": "total.md", "content": "# Total\n45060"})], True),
    (None, [("run_python", {"code": "print(41250 + 3810)"})], True),
    ("Reading.", [("read_file", {"path": "list_files"})], False),  # run 18: a made-up path
    (None, [("read_file", {"path": "budget.xlsx"})], False),  # a file that is not there
    (None, [("list_files", {"path": "budget"})], False),  # a folder that is not there
    (None, [("write_file", {"path": "total.md"})], False),  # no content
    (None, [("read_file", {"path": "budget.csv"}), ("read_file", {"path": "reports/q2.xlsx"})], False),
    ("See <b>this</b>.", [], False),  # prose with a tag could open a call the parser misreads
    ("x" * 161, [], False),
])
def test_a_held_turn_is_prose_and_at_most_one_well_formed_call_on_a_listed_file(
    content: str | None, calls: list[tuple[str, dict[str, object]]], held: bool
) -> None:
    """The held turn's grammar, read as a regular expression, takes exactly the turns the served template
    prints for prose and one call of an agent tool whose read path is one of the task's files."""
    grammar = turn_grammar(FILES, max_tokens=1024)
    from llama_cpp import LlamaGrammar

    LlamaGrammar.from_string(grammar)
    assert bool(_gbnf_regex(grammar).fullmatch(_turn(content, calls))) is held


def test_a_held_turn_closes_within_the_reply_budget() -> None:
    """The longest turn the grammar takes (prose, a write with the longest path, the bounded content) holds
    no more characters than the budget has tokens."""
    budget = 1024
    pattern = _gbnf_regex(turn_grammar(FILES, max_tokens=budget))
    path = "p" * 100
    shell = _turn("y" * 160, [("write_file", {"path": path, "content": ""})])
    room = budget - len(shell)
    assert room > 500  # a deliverable still fits
    for length, held in ((room, True), (room + 1, False)):
        turn = _turn("y" * 160, [("write_file", {"path": path, "content": "z" * length})])
        assert bool(pattern.fullmatch(turn)) is held


@pytest.mark.parametrize(("args", "held"), [
    ({"path": "budget.csv"}, False),  # its first page is in the conversation already
    ({"path": "budget.csv", "offset": 0}, False),
    ({"path": "budget.csv", "offset": 1200}, True),  # the next page
    ({"path": "reports/q2.xlsx"}, True),  # not read yet
])
def test_a_held_turn_reads_a_first_page_once(args: dict[str, object], held: bool) -> None:
    pattern = _gbnf_regex(turn_grammar(FILES, max_tokens=1024, read={"budget.csv"}))
    assert bool(pattern.fullmatch(_turn(None, [("read_file", args)]))) is held


def test_a_held_turn_without_files_has_no_read() -> None:
    """A task that lists no file: the grammar still parses, and a turn can list, write or run, not read."""
    grammar = turn_grammar([], max_tokens=1024)
    from llama_cpp import LlamaGrammar

    LlamaGrammar.from_string(grammar)
    pattern = _gbnf_regex(grammar)
    assert pattern.fullmatch(_turn(None, [("list_files", {})]))
    assert not pattern.fullmatch(_turn(None, [("read_file", {"path": "budget.csv"})]))

"""Tool calls written as text: the chat template GraphForge serves its own small models with, and the parser
that reads the calls back out of a reply.

llama-cpp-python's ``chatml-function-calling`` format drops what a tool returned (a ``tool`` message is
rendered as its role header only) and lets a reply be a message or calls, never both: an agent served
that way cannot read a file. Models the project fine-tunes are therefore exported with the template below
in their GGUF metadata (``tokenizer.chat_template``); llama.cpp's server renders every request with it,
the training rows are rendered with the very same template, and the calls come back as text in the
Hermes form many small instruct models know::

    I will read the budget first.
    <tool_call>
    {"name": "read_file", "arguments": {"path": "budget.csv"}}
    </tool_call>

:func:`split_calls` turns such a reply into its prose and its calls; the chat client applies it to any
reply that holds no structured calls, so a server that leaves calls in the text works like one that
parses them.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

OPEN = "<tool_call>"
CLOSE = "</tool_call>"

# No literal newline in the template: a newline is always the expression {{ nl }}, so the result does not
# depend on the renderer's trim_blocks / lstrip_blocks settings (llama.cpp's and transformers' differ).
_NL = "{{ '\\n' }}"
# The tools are listed as signatures, one line each (``read_file(path: string, offset?: integer) - Read a
# file``), not as JSON schemas: a small model shown schemas copies them into its calls' arguments
# (measured in the closed loop: calls whose arguments were the tool's schema).
_TOOL_LISTING = (
    "{%- macro tool_listing(tools) -%}"
    "You can call these tools. To call one, write" + _NL +
    "<tool_call>" + _NL + "{\"name\": <tool name>, \"arguments\": <JSON object>}" + _NL +
    "</tool_call>" + _NL +
    "Tools:" + _NL +
    "{%- for tool in tools -%}"
    "{%- set f = tool.function if tool.function is defined else tool -%}"
    "{%- set params = (f.parameters or {}) -%}"
    "{%- set required = params.required or [] -%}"
    "- {{ f.name }}("
    "{%- for name, prop in (params.properties or {}).items() -%}"
    "{{ name }}{% if name not in required %}?{% endif %}: {{ prop.type or 'any' }}"
    "{%- if not loop.last %}, {% endif -%}"
    "{%- endfor -%}"
    ")"
    "{%- if f.description %} - {{ f.description }}{% endif -%}" + _NL +
    "{%- endfor -%}"
    "{%- endmacro -%}"
)


_REPLY = (
    "{%- macro reply(message) -%}"
    "{{ message.content or '' }}"
    "{%- for call in (message.tool_calls or []) -%}"
    "{%- if message.content or not loop.first -%}" + _NL + "{%- endif -%}"
    "<tool_call>" + _NL +
    "{\"name\": {{ call.function.name | tojson }}, \"arguments\": "
    "{%- if call.function.arguments is string %} {{ call.function.arguments }}"
    "{%- else %} {{ call.function.arguments | tojson }}{%- endif -%}"
    "}" + _NL + "</tool_call>"
    "{%- endfor -%}"
    "<|im_end|>"
    "{%- endmacro -%}"
)


def _template(mark_replies: bool) -> str:
    """The chat template; with ``mark_replies`` each assistant turn (its end marker included, so a model
    learns to stop) sits in ``{% generation %}`` marks, which print nothing: transformers reads them for
    assistant-only loss, and the text is the served template's, character for character. A reply with
    ``context_only`` set (a training window's repeated opening) is printed unmarked: context, not loss."""
    if mark_replies:
        assistant = ("{%- if message.context_only -%}{{ reply(message) }}"
                     "{%- else -%}{% generation %}{{ reply(message) }}{% endgeneration %}{%- endif -%}")
    else:
        assistant = "{{ reply(message) }}"
    return _TOOL_LISTING + _REPLY + (
        "{%- for message in messages -%}"
        "{%- if loop.first and message.role != 'system' and tools -%}"
        "<|im_start|>system" + _NL + "{{ tool_listing(tools) }}<|im_end|>" + _NL +
        "{%- endif -%}"
        "<|im_start|>{{ message.role }}" + _NL +
        "{%- if message.role == 'system' -%}"
        "{{ message.content or '' }}"
        "{%- if tools -%}" + _NL + _NL + "{{ tool_listing(tools) }}{%- endif -%}"
        "<|im_end|>"
        "{%- elif message.role == 'assistant' -%}" + assistant +
        "{%- else -%}"
        "{{ message.content or '' }}"
        "<|im_end|>"
        "{%- endif -%}" + _NL +
        "{%- endfor -%}"
        "{%- if add_generation_prompt -%}<|im_start|>assistant" + _NL + "{%- endif -%}"
    )


CHAT_TEMPLATE = _template(mark_replies=False)
"""The served template (stored in the GGUF)."""
TRAINING_TEMPLATE = _template(mark_replies=True)
"""The same text, each reply marked for assistant-only loss (the tokenizer's template in training)."""


def render(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
           add_generation_prompt: bool = False) -> str:
    """The prompt llama.cpp's server builds from :data:`CHAT_TEMPLATE` for these OpenAI-form messages:
    rendered by llama-cpp-python's own Jinja formatter (the ``local-llm`` extra), so training text rendered
    here is the served prompt, byte for byte."""
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    formatter = Jinja2ChatFormatter(CHAT_TEMPLATE, eos_token="<|im_end|>", bos_token="<|im_start|>",
                                    add_generation_prompt=add_generation_prompt)
    return str(formatter(messages=messages, tools=tools).prompt)  # type: ignore[arg-type]


# A JSON string's character in llama.cpp's GBNF: anything but a quote, a backslash or a control character,
# or an escape (RFC 8259).
_GBNF_PLAIN_CHAR = '[^"\\\\\\x00-\\x1f]'
_GBNF_STRING_CHAR = (
    f'char ::= {_GBNF_PLAIN_CHAR} | "\\\\" ( ["\\\\/bfnrt] | "u" hex hex hex hex )\n'
    "hex ::= [0-9a-fA-F]"
)


def call_text(name: str, fixed: dict[str, str], free: str) -> tuple[str, str]:
    """The text before and after the free argument's value in a reply that is only this call, as the
    served template prints it (arguments as ``json.dumps`` writes them, ``fixed`` first, ``free`` last)."""
    head = "".join(f"{json.dumps(k)}: {json.dumps(v)}, " for k, v in fixed.items())
    before = f'{OPEN}\n{{"name": {json.dumps(name)}, "arguments": {{{head}{json.dumps(free)}: "'
    return before, f'"}}}}\n{CLOSE}'


def call_grammar(name: str, fixed: dict[str, str], free: str, max_tokens: int | None = None,
                 json_document: bool = False) -> str:
    """A GBNF grammar (llama.cpp's ``grammar`` request field) whose only sentences are one call to ``name``
    in the template's form, ``fixed`` arguments as given and ``free`` any JSON string: how a model served
    with this template is held to one call, in the form it was trained on, where ``tool_choice`` would
    have llama-cpp-python write bare JSON arguments instead.

    With ``max_tokens`` (the reply's token budget) the free string is at most that many characters less
    those of the fixed text, so the call closes within the budget: a token holds at least one character,
    bar the rare ``\\uXXXX`` escape. Unbounded, a small model that fell into repeating one line ran its
    string past the budget and the call was cut, unreadable and lost (run 17: 4 of 8 forced writes of
    each tuned player); bounded, it is a shorter file.

    With ``json_document`` the free string, once decoded, is itself a JSON object or array (the file a
    ``.json`` deliverable asks for; run 17b: every player's JSON file had a syntax slip and was unreadable):
    see :func:`_json_document_rules` for its form and bounds."""
    before, after = call_text(name, fixed, free)
    room = None if max_tokens is None else max(1, max_tokens - len(before) - len(after))
    if json_document:
        return f"root ::= {json.dumps(before)} jdoc {json.dumps(after)}\n{_json_document_rules(room)}\n"
    repeat = "*" if room is None else f"{{0,{room}}}"
    return (f"root ::= {json.dumps(before)} chars {json.dumps(after)}\nchars ::= char{repeat}\n"
            f"{_GBNF_STRING_CHAR}\n")


_PROSE = 160  # characters of a held turn's prose (one or two sentences, as the demonstrations write)
_PATH = 100  # characters of the path write_file is given in a held turn


def turn_grammar(files: list[str], max_tokens: int | None = None, read: Collection[str] = ()) -> str:
    """A GBNF grammar for one agent turn in the served template's form: prose (at most :data:`_PROSE`
    characters, no ``<``), or one call, or prose then one call, where the call is well formed for one of
    the agent's tools (``graphforge.agent.tools.TOOL_SCHEMAS``), ``read_file``'s path one of ``files``
    (the workspace's files the task lists) and ``list_files``'s none or one of their folders. A file in
    ``read`` (its first page already read in this conversation) is read again only from an ``offset``
    past 0: the same page again would answer with what the conversation holds already.

    What a held turn rules out is what a small model otherwise spends its turns on: a path it made up
    (run 18: a tuned player asked read_file for ``list_files``), a call without a required argument
    (``write_file`` with no ``content``), a call that is not JSON. The strings a call writes (``content``,
    ``code``) are free; with ``max_tokens`` bounded, as in :func:`call_grammar`, so that the whole turn
    (prose, call, string) closes within the budget: at most the budget's characters less the prose's and
    the call's fixed text."""
    folders = sorted({str(PurePosixPath(f).parent) for f in files} - {"."})
    fresh = [f for f in files if f not in set(read)]

    def choice(values: list[str]) -> str:
        return " | ".join(json.dumps(json.dumps(v)) for v in values)

    def head(name: str) -> str:  # the call's text up to its arguments' value
        return f'{OPEN}\n{{"name": {json.dumps(name)}, "arguments": '

    end = f"}}\n{CLOSE}"
    write_head, content_head = head("write_file") + '{"path": "', '", "content": "'
    fixed = len(write_head) + _PATH + len(content_head) + len('"}') + len(end) + 1
    free = "char*" if max_tokens is None else f"char{{0,{max(1, max_tokens - _PROSE - fixed)}}}"
    lit = json.dumps
    offset = f"{lit(', ' + lit('offset') + ': ')} [1-9] [0-9]{{0,6}}"  # past the first page
    reads = (["fresh"] if fresh else []) + [f"file {offset}"]
    rules = [
        f"root ::= call | prose | prose {lit(chr(10))} call",
        f"prose ::= [^<]{{1,{_PROSE}}}",
        f"call ::= ( list | {'read | ' if files else ''}write | python ) {lit(end)}",
        f"list ::= {lit(head('list_files'))} " + ('( "{}" | ' + lit('{"path": ') + ' folder "}" )'
                                                  if folders else '"{}"'),
        f"write ::= {lit(write_head)} pathchar{{1,{_PATH}}} {lit(content_head)} {free} {lit(chr(34) + '}')}",
        f"python ::= {lit(head('run_python') + '{' + lit('code') + ': ' + chr(34))} {free} "
        f"{lit(chr(34) + '}')}",
        f"pathchar ::= {_GBNF_PLAIN_CHAR}",
        _GBNF_STRING_CHAR,
    ]
    if files:
        rules += [f"read ::= {lit(head('read_file') + '{' + lit('path') + ': ')} ( {' | '.join(reads)} ) "
                  + lit("}"), f"file ::= {choice(files)}"]
    if fresh:
        rules.append(f"fresh ::= {choice(fresh)}")
    if folders:
        rules.append(f"folder ::= {choice(folders)}")
    return "\n".join(rules) + "\n"


_JSON_DEPTH = 3  # containers inside containers: {"items": [{"file": ...}]} is three deep
_JSON_MEMBERS = 16  # members of one object, values of one array
_JSON_STRING = 160  # characters of one string


def _json_document_rules(room: int | None) -> str:
    """GBNF for a JSON document as it reads inside a JSON string (rule ``jdoc``): an object or array at
    most :data:`_JSON_DEPTH` containers deep, each of at most :data:`_JSON_MEMBERS` members, strings of at
    most :data:`_JSON_STRING` characters (fewer when ``room``, the characters left in the budget, is
    smaller) without escapes, numbers, ``true``, ``false``, ``null``. Inside the outer string the
    document's quotes are written ``\\"`` and its line breaks ``\\n``; its other characters as they are.

    The bounds keep a model that repeats itself from running on (a string, an array and an object each
    end); they do not bound the whole document by the budget as the plain string is, since a records file
    of a dozen objects would then not fit: a document cut at the budget is lost, as before."""
    quote, newline = json.dumps('\\"'), json.dumps("\\n")
    length = _JSON_STRING if room is None else max(1, min(_JSON_STRING, room))
    rules = [
        "jdoc ::= jws ( jobj1 | jarr1 ) jws",
        f"jws ::= ( \" \" | {newline} ){{0,24}}",
        f"jstr ::= {quote} jchar{{0,{length}}} {quote}",
        f"jchar ::= {_GBNF_PLAIN_CHAR}",
        'jnum ::= "-"? [0-9]{1,15} ( "." [0-9]{1,8} )?',
        'jscalar ::= jstr | jnum | "true" | "false" | "null"',
    ]
    more = f"{{0,{_JSON_MEMBERS - 1}}}"
    for level in range(1, _JSON_DEPTH + 1):
        inner = f"jscalar | jobj{level + 1} | jarr{level + 1}" if level < _JSON_DEPTH else "jscalar"
        rules += [
            f"jval{level} ::= {inner}",
            f"jmem{level} ::= jstr jws \":\" jws jval{level}",
            f'jobj{level} ::= "{{" jws ( jmem{level} ( jws "," jws jmem{level} ){more} jws )? "}}"',
            f'jarr{level} ::= "[" jws ( jval{level} ( jws "," jws jval{level} ){more} jws )? "]"',
        ]
    return "\n".join(rules)


@dataclass(frozen=True)
class TextCall:
    """One call found in a reply: its arguments parsed (``args``) or the reason they are not (``error``)."""

    name: str
    args: dict[str, Any] | None
    raw: str
    error: str | None = None


def split_calls(content: str) -> tuple[str, list[TextCall]]:
    """A reply's prose (the text outside the call blocks, stripped) and its ``<tool_call>`` blocks in order.

    Each block's body is read as one JSON value with ``raw_decode`` (so a ``</tool_call>`` inside a quoted
    argument does not end it); a body that is not ``{"name": ..., "arguments": {...}}`` is kept as a call
    with its error, so the model is told what was wrong. A reply without a block comes back unchanged.
    """
    if OPEN not in content:
        return content, []
    decoder = json.JSONDecoder()
    prose: list[str] = []
    calls: list[TextCall] = []
    pos = 0
    while (start := content.find(OPEN, pos)) >= 0:
        prose.append(content[pos:start])
        body_at = start + len(OPEN)
        while body_at < len(content) and content[body_at].isspace():
            body_at += 1
        end = body_at
        try:
            value, end = decoder.raw_decode(content, body_at)
            call = _call_of(value, content[body_at:end])
        except ValueError as exc:
            close = content.find(CLOSE, body_at)
            end = close if close >= 0 else len(content)
            call = TextCall(name="", args=None, raw=content[body_at:end].strip(),
                            error=f"not JSON: {getattr(exc, 'msg', exc)}")
        calls.append(call)
        rest = content[end:].lstrip()
        pos = end + (len(content[end:]) - len(rest)) + (len(CLOSE) if rest.startswith(CLOSE) else 0)
    prose.append(content[pos:])
    return "".join(prose).strip(), calls


def _call_of(value: Any, raw: str) -> TextCall:
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        return TextCall(name="", args=None, raw=raw, error='a call is {"name": ..., "arguments": {...}}')
    args = value.get("arguments", {})
    if isinstance(args, str):  # arguments sent as JSON text, as the OpenAI wire form carries them
        try:
            args = json.loads(args) if args.strip() else {}
        except ValueError:
            return TextCall(name=value["name"], args=None, raw=raw, error="arguments are not JSON")
    if not isinstance(args, dict):
        return TextCall(name=value["name"], args=None, raw=raw, error="arguments are not a JSON object")
    return TextCall(name=value["name"], args=args, raw=raw)

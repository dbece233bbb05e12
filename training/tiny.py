"""A tiny Llama and a locally trained BPE tokenizer with a tool-aware chat template (no downloads)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

SPECIAL_TOKENS = [
    "<|pad|>",
    "<|end|>",
    "<|system|>",
    "<|user|>",
    "<|assistant|>",
    "<|tool|>",
    "<|call|>",
    "<|tools|>",
]

# Tool calls print their JSON arguments verbatim (string) or serialised (mapping); the assistant turn,
# its end marker included, sits inside {% generation %} so assistant-only loss also learns to stop.
CHAT_TEMPLATE = (
    "{%- if tools %}<|tools|>{{ tools | tojson }}<|end|>\n{% endif %}"
    "{%- for message in messages %}"
    "{%- if message['role'] == 'assistant' %}<|assistant|>{% generation %}"
    "{%- if message['content'] %}{{ message['content'] }}{% endif %}"
    "{%- if message['tool_calls'] %}{% for call in message['tool_calls'] %}"
    "<|call|>{{ call['function']['name'] }} "
    "{%- if call['function']['arguments'] is string %}{{ call['function']['arguments'] }}"
    "{%- else %}{{ call['function']['arguments'] | tojson }}{% endif %}{% endfor %}{% endif %}"
    "<|end|>{% endgeneration %}\n"
    "{%- else %}<|{{ message['role'] }}|>"
    "{% if message['content'] %}{{ message['content'] }}{% endif %}<|end|>\n"
    "{%- endif %}{%- endfor %}"
    "{%- if add_generation_prompt %}<|assistant|>{% endif %}"
)


def row_texts(rows: Iterable[dict[str, Any]]) -> Iterable[str]:
    """Every string a row renders, for tokenizer training."""
    for row in rows:
        if row.get("tools"):
            yield str(row["tools"])
        for m in row["messages"]:
            if m.get("content"):
                yield m["content"]
            for call in m.get("tool_calls") or ():
                yield call["function"]["name"] + " " + str(call["function"]["arguments"])


def build_tokenizer(texts: Iterable[str], vocab_size: int = 512) -> Any:
    """Byte-level BPE trained on ``texts`` and wrapped as a transformers fast tokenizer."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(texts, trainer=trainer)
    fast = PreTrainedTokenizerFast(  # type: ignore[no-untyped-call]
        tokenizer_object=tok, pad_token="<|pad|>", eos_token="<|end|>"
    )
    fast.chat_template = CHAT_TEMPLATE
    return fast


def build_model(
    tokenizer: Any,
    hidden_size: int = 64,
    layers: int = 2,
    heads: int = 4,
    kv_heads: int = 2,
    intermediate_size: int = 128,
    max_positions: int = 4096,
    seed: int = 0,
) -> Any:
    """A LlamaForCausalLM from a config (random weights, seeded)."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden_size,
        intermediate_size=intermediate_size,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=kv_heads,
        max_position_embeddings=max_positions,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        bos_token_id=None,
        tie_word_embeddings=True,
    )
    return LlamaForCausalLM(config)


def save_tiny(rows: list[dict[str, Any]], out_dir: Path, **model_kwargs: Any) -> Path:
    """Train a tokenizer on ``rows``, build a tiny model, save both to ``out_dir`` (a from_pretrained dir)."""
    vocab_size = int(model_kwargs.pop("vocab_size", 512))
    tokenizer = build_tokenizer(row_texts(rows), vocab_size=vocab_size)
    model = build_model(tokenizer, **model_kwargs)
    out_dir.mkdir(parents=True, exist_ok=True)
    tokenizer.save_pretrained(out_dir)
    model.save_pretrained(out_dir)
    return out_dir

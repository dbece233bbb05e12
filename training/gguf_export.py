"""Write a fine-tuned Llama-architecture checkpoint as a GGUF file llama.cpp can serve.

python training/gguf_export.py --model out/sft-smollm2 --base-gguf BASE.gguf --out tuned.gguf

The model was loaded for training from a GGUF file (transformers de-quantizes it); this writes the trained
weights back in the same layout: every metadata field of the base file (architecture, hyper-parameters,
tokenizer, chat template) is copied, each tensor the base file holds is replaced by the trained one under
the same GGUF name (2-D weights in float16, norms in float32), and the query/key projections are permuted
back into llama.cpp's rotary layout (the inverse of what transformers undoes when it reads a GGUF).
No llama.cpp conversion script is needed, and the result is checked by loading it in llama.cpp.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np


def _permute(weights: np.ndarray, n_head: int) -> np.ndarray:
    """llama.cpp's rotary layout for q/k (convert_hf_to_gguf's LlamaModel.permute)."""
    return (weights.reshape(n_head, 2, weights.shape[0] // n_head // 2, *weights.shape[1:])
            .swapaxes(1, 2).reshape(weights.shape))


def _field_value(field: Any) -> Any:
    return field.contents()


def export(model_dir: Path, base_gguf: Path, out: Path, chat_template: str | None = None) -> dict[str, Any]:
    """``chat_template`` replaces the base file's ``tokenizer.chat_template`` (the template llama.cpp's server
    renders every request with), for a model trained on conversations rendered with another template."""
    import gguf
    import torch
    from transformers import AutoModelForCausalLM

    reader = gguf.GGUFReader(str(base_gguf))
    arch = str(_field_value(reader.fields["general.architecture"]))
    if arch != "llama":
        raise SystemExit(f"{base_gguf}: architecture {arch!r}; only llama is supported")
    n_head = int(_field_value(reader.fields["llama.attention.head_count"]))
    n_kv = int(_field_value(reader.fields["llama.attention.head_count_kv"]))
    n_blocks = int(_field_value(reader.fields["llama.block_count"]))
    model = AutoModelForCausalLM.from_pretrained(str(model_dir), dtype=torch.float32)
    state = {k: v.detach().float().numpy() for k, v in model.state_dict().items()}
    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.LLAMA, n_blocks)
    by_gguf: dict[str, np.ndarray] = {}
    for hf_name, data in state.items():
        mapped = names.get_name(hf_name, try_suffixes=(".weight", ".bias"))
        if mapped is None:
            continue
        if hf_name.endswith("q_proj.weight"):
            data = _permute(data, n_head)
        elif hf_name.endswith("k_proj.weight"):
            data = _permute(data, n_kv)
        by_gguf[mapped] = data
    writer = gguf.GGUFWriter(str(out), arch)
    for field in reader.fields.values():
        if field.name.startswith("GGUF.") or field.name == "general.architecture":
            continue
        vtype = field.types[0]
        if field.name == "tokenizer.chat_template" and chat_template is not None:
            writer.add_key_value(field.name, chat_template, vtype)
            continue
        if field.name == "general.file_type":
            writer.add_uint32(field.name, int(gguf.LlamaFileType.MOSTLY_F16))
            continue
        sub = field.types[-1] if vtype == gguf.GGUFValueType.ARRAY else None
        writer.add_key_value(field.name, _field_value(field), vtype, sub_type=sub)
    if chat_template is not None and "tokenizer.chat_template" not in reader.fields:
        writer.add_chat_template(chat_template)
    missing = []
    for tensor in reader.tensors:
        data = by_gguf.get(tensor.name)
        if data is None:
            missing.append(tensor.name)
            continue
        writer.add_tensor(tensor.name, data.astype(np.float16 if data.ndim == 2 else np.float32))
    if missing:
        raise SystemExit(f"{model_dir}: no trained tensor for {', '.join(missing[:5])}")
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return {"out": str(out), "tensors": len(reader.tensors), "bytes": out.stat().st_size}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", type=Path, required=True, help="the trained checkpoint folder (save_model)")
    p.add_argument("--base-gguf", type=Path, required=True, help="the GGUF file the model was trained from")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--chat-template", type=Path,
                   help="a Jinja chat template file to store instead of the base file's")
    args = p.parse_args(argv)
    template = args.chat_template.read_text(encoding="utf-8") if args.chat_template else None
    print(export(args.model, args.base_gguf, args.out, chat_template=template))
    return 0


if __name__ == "__main__":
    sys.exit(main())

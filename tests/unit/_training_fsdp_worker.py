"""Worker for test_training_fsdp: trains a tiny Llama with Muon + AdamW, FSDP2-sharded when run by torchrun.

    torchrun --nproc_per_node 2 tests/unit/_training_fsdp_worker.py OUT.json   # FSDP2 over gloo, on CPU
    python tests/unit/_training_fsdp_worker.py OUT.json                        # one process, unsharded

Every process sees the same global batch and trains on its own rows of it; the losses written are the
global token means, so one and two processes must agree.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from training.muon import build_optimizer  # noqa: E402

STEPS, GLOBAL_BATCH, SEQ, VOCAB = 6, 4, 16, 96


def main(out: Path) -> None:
    import torch.distributed as dist
    from transformers import LlamaConfig, LlamaForCausalLM

    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    if world > 1:
        dist.init_process_group("gloo")
    torch.manual_seed(0)
    model = LlamaForCausalLM(LlamaConfig(
        vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=SEQ, tie_word_embeddings=False))
    sharded = 0
    if world > 1:
        from torch.distributed.fsdp import fully_shard

        for layer in model.model.layers:
            fully_shard(layer)
        fully_shard(model)
        sharded = sum(1 for p in model.parameters() if type(p).__name__ == "DTensor")
    opt = build_optimizer(model, lr=0.02, weight_decay=0.01)
    gen = torch.Generator().manual_seed(1)
    data = torch.randint(0, VOCAB, (GLOBAL_BATCH, SEQ), generator=gen)  # memorised: the loss must fall
    per_rank = GLOBAL_BATCH // world
    losses = []
    for _ in range(STEPS):
        ids = data[rank * per_rank:(rank + 1) * per_rank]
        loss = model(input_ids=ids, labels=ids).loss  # equal token counts per rank: mean of means = mean
        opt.zero_grad()
        loss.backward()  # FSDP2 reduce-scatters the gradient mean across ranks
        opt.step()
        global_loss = loss.detach().clone()
        if world > 1:
            dist.all_reduce(global_loss)
            global_loss /= world
        losses.append(float(global_loss))
    if rank == 0:
        out.write_text(json.dumps({"losses": losses, "world": world, "dtensor_params": sharded}))
    if world > 1:
        dist.destroy_process_group()


if __name__ == "__main__":
    main(Path(sys.argv[1]))

"""Muon + AdamW: the parameter split, one LR schedule for both, state round trip."""

from __future__ import annotations

import torch
from torch import nn

from training.muon import build_optimizer, split_parameters


class Tiny(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(16, 8)
        self.hidden = nn.Linear(8, 8)
        self.norm = nn.LayerNorm(8)
        self.head = nn.Linear(8, 16, bias=False)

    def get_output_embeddings(self) -> nn.Module:
        return self.head

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.head(self.norm(torch.relu(self.hidden(self.embed(ids)))))


def test_only_hidden_matrices_go_to_muon() -> None:
    model = Tiny()
    groups = split_parameters(model)
    assert [p.shape for p in groups["muon"]] == [model.hidden.weight.shape]
    assert {id(p) for p in groups["adamw_decay"]} == {id(model.embed.weight), id(model.head.weight)}
    assert {id(p) for p in groups["adamw_no_decay"]} == {
        id(model.hidden.bias),
        id(model.norm.weight),
        id(model.norm.bias),
    }


def test_scheduler_drives_both_and_training_reduces_loss() -> None:
    torch.manual_seed(0)
    model = Tiny()
    opt = build_optimizer(model, lr=0.02, weight_decay=0.05)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda step: 0.5)
    assert opt.muon.param_groups[0]["lr"] == opt.adamw.param_groups[0]["lr"] == 0.01
    ids = torch.randint(0, 16, (4, 6))
    losses = []
    for _ in range(30):
        loss = nn.functional.cross_entropy(model(ids).reshape(-1, 16), ids.reshape(-1))
        losses.append(loss.item())
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
    assert losses[-1] < losses[0]
    state = opt.state_dict()
    fresh = build_optimizer(model, lr=0.02, weight_decay=0.05)
    fresh.load_state_dict(state)
    assert torch.equal(
        fresh.muon.state_dict()["state"][0]["momentum_buffer"], state["muon"]["state"][0]["momentum_buffer"]
    )

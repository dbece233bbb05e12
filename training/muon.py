"""Muon for 2-D hidden weights, AdamW for embeddings, heads, norms and biases, as one optimizer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch import nn


def split_parameters(model: nn.Module) -> dict[str, list[nn.Parameter]]:
    """Partition trainable parameters into Muon and AdamW groups.

    Muon orthogonalises matrix updates, which suits the 2-D weights inside transformer blocks; the
    embedding and output head are lookups/readouts rather than hidden transforms, and 1-D norms and
    biases have no matrix structure, so those go to AdamW (the split Muon's authors and Moonlight use).
    Norms and biases get no weight decay, as in the transformers Trainer default.
    """
    embedding_ids = {id(p) for m in model.modules() if isinstance(m, nn.Embedding) for p in m.parameters()}
    get_head = getattr(model, "get_output_embeddings", None)
    head = get_head() if callable(get_head) else None
    if head is not None:
        embedding_ids |= {id(p) for p in head.parameters()}
    groups: dict[str, list[nn.Parameter]] = {"muon": [], "adamw_decay": [], "adamw_no_decay": []}
    seen: set[int] = set()
    for _, p in model.named_parameters():
        if not p.requires_grad or id(p) in seen:  # tied weights appear once
            continue
        seen.add(id(p))
        if p.ndim == 2 and id(p) not in embedding_ids:
            groups["muon"].append(p)
        elif p.ndim >= 2:
            groups["adamw_decay"].append(p)
        else:
            groups["adamw_no_decay"].append(p)
    return groups


class MuonWithAdamW(torch.optim.Optimizer):
    """Steps a Muon and an AdamW optimizer together behind one Optimizer interface.

    ``param_groups`` holds the sub-optimizers' own group dicts, so an LR scheduler (the Trainer's cosine
    warmup) that writes ``group["lr"]`` drives both. State dicts nest the two sub-optimizers' states.
    """

    def __init__(self, muon: torch.optim.Optimizer, adamw: torch.optim.Optimizer) -> None:
        self.muon = muon
        self.adamw = adamw
        # The base class stores the very same group dicts (add_param_group appends the dict it gets).
        super().__init__([*muon.param_groups, *adamw.param_groups], defaults={})

    @torch.no_grad()
    def step(self, closure: Callable[[], Any] | None = None) -> Any:  # type: ignore[override]
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        self.muon.step()
        self.adamw.step()
        return loss

    def zero_grad(self, set_to_none: bool = True) -> None:
        self.muon.zero_grad(set_to_none=set_to_none)
        self.adamw.zero_grad(set_to_none=set_to_none)

    def state_dict(self) -> dict[str, Any]:
        return {"muon": self.muon.state_dict(), "adamw": self.adamw.state_dict()}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.muon.load_state_dict(state_dict["muon"])
        self.adamw.load_state_dict(state_dict["adamw"])


def build_optimizer(
    model: nn.Module,
    lr: float,
    weight_decay: float,
    *,
    momentum: float = 0.95,
    ns_steps: int = 5,
    adjust_lr_fn: str = "match_rms_adamw",
    betas: tuple[float, float] = (0.9, 0.95),
    eps: float = 1e-8,
) -> MuonWithAdamW:
    """Muon + AdamW with one peak LR: ``match_rms_adamw`` scales Muon's update to AdamW's RMS.

    That scaling (Moonlight, "Muon is Scalable for LLM Training") lets the paper's single peak LR
    (2e-5 for SFT) and schedule apply to both groups.
    """
    groups = split_parameters(model)
    if not groups["muon"]:
        raise ValueError("the model has no 2-D hidden weights for Muon")
    muon = torch.optim.Muon(
        groups["muon"],
        lr=lr,
        weight_decay=weight_decay,
        momentum=momentum,
        ns_steps=ns_steps,
        adjust_lr_fn=adjust_lr_fn,
    )
    adam_groups = [
        {"params": groups["adamw_decay"], "weight_decay": weight_decay},
        {"params": groups["adamw_no_decay"], "weight_decay": 0.0},
    ]
    adamw = torch.optim.AdamW([g for g in adam_groups if g["params"]], lr=lr, betas=betas, eps=eps)
    return MuonWithAdamW(muon, adamw)

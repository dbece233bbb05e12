"""Muon for hidden weight matrices (dense and per expert), AdamW for the rest, as one optimizer.

Which parameters get Muon:

- 2-D hidden weights (attention and MLP projections, and each expert's projections when experts are
  separate ``nn.Linear`` modules) are one matrix each.
- A fused 3-D expert tensor (``(experts, out, in)``, as Qwen3-MoE, Mixtral and others store experts in
  transformers 5) is ``experts`` matrices: each expert's slice is orthogonalised on its own, exactly as
  if the experts were separate layers. A fused ``gate_up_proj`` additionally holds two matrices per
  expert (gate and up, stacked on the output axis); they are split so that the result equals Muon on
  an unfused model.
- The router (``mlp.gate`` / ``router`` / ``shared_expert_gate``), the embeddings and the output head,
  and 1-D norms and biases go to AdamW. The router maps tokens to expert scores, a readout rather than a
  hidden transform, and orthogonalising it would equalise the experts' logit scales.

Under FSDP2 the parameters are DTensors sharded on their first axis; Muon needs whole matrices, so each
update gathers the full momentum-corrected gradient, orthogonalises it, and keeps its own shard (every
rank computes the same full update; the memory cost is one full matrix at a time).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

import torch
from torch import nn

NS_COEFFICIENTS = (3.4445, -4.7750, 2.0315)  # the quintic of Keller Jordan's Muon, as torch.optim.Muon uses
ROUTER_NAMES = frozenset({"gate", "router", "shared_expert_gate"})
ADJUST_LR_FNS = ("original", "match_rms_adamw", "spectral_unclamped")


def is_router(param_name: str) -> bool:
    """A MoE router/gate weight: the owning module is named ``gate``/``router`` (not ``gate_proj``)."""
    parts = param_name.split(".")
    return len(parts) >= 2 and parts[-2] in ROUTER_NAMES


def matrices_per_slice(param_name: str, shape: torch.Size) -> int:
    """How many matrices one expert's slice of a fused tensor holds: 2 for ``gate_up_proj``, else 1."""
    if param_name.endswith("gate_up_proj") and len(shape) == 3 and shape[-2] % 2 == 0:
        return 2
    return 1


def split_parameters(model: nn.Module) -> dict[str, list[nn.Parameter]]:
    """Partition trainable parameters into Muon and AdamW groups (see the module docstring).

    Norms and biases get no weight decay, as in the transformers Trainer default.
    """
    return {key: [p for _, p in named] for key, named in split_named_parameters(model).items()}


def split_named_parameters(model: nn.Module) -> dict[str, list[tuple[str, nn.Parameter]]]:
    embedding_ids = {id(p) for m in model.modules() if isinstance(m, nn.Embedding) for p in m.parameters()}
    get_head = getattr(model, "get_output_embeddings", None)
    head = get_head() if callable(get_head) else None
    if head is not None:
        embedding_ids |= {id(p) for p in head.parameters()}
    groups: dict[str, list[tuple[str, nn.Parameter]]] = {"muon": [], "adamw_decay": [], "adamw_no_decay": []}
    seen: set[int] = set()
    for name, p in model.named_parameters():
        if not p.requires_grad or id(p) in seen:  # tied weights appear once
            continue
        seen.add(id(p))
        if p.ndim in (2, 3) and id(p) not in embedding_ids and not is_router(name):
            groups["muon"].append((name, p))
        elif p.ndim >= 2:
            groups["adamw_decay"].append((name, p))
        else:
            groups["adamw_no_decay"].append((name, p))
    return groups


def _adjusted_lr(lr: float, adjust_lr_fn: str, rows: int, cols: int) -> float:
    if adjust_lr_fn == "original":
        return lr * math.sqrt(max(1.0, rows / cols))
    if adjust_lr_fn == "match_rms_adamw":
        return lr * 0.2 * math.sqrt(max(rows, cols))
    if adjust_lr_fn == "spectral_unclamped":
        return lr * math.sqrt(rows / cols)
    raise ValueError(f"unknown adjust_lr_fn {adjust_lr_fn!r}; expected one of {', '.join(ADJUST_LR_FNS)}")


def orthogonalise(matrices: torch.Tensor, steps: int, eps: float) -> torch.Tensor:
    """Newton–Schulz zeroth power of each matrix in a ``(batch, rows, cols)`` stack: in bfloat16 on an
    accelerator, in float32 on the CPU, where a bfloat16 matrix product can run hundreds of times slower
    (torch 2.15 on a 2-core machine: 100 s for a 576x576 by 576x49152 product, 0.4 s in float32; one Muon
    step on SmolLM2's embedding took 11 minutes)."""
    a, b, c = NS_COEFFICIENTS
    dtype = torch.float32 if matrices.device.type == "cpu" else torch.bfloat16
    x = matrices.to(dtype=dtype, copy=True)
    tall = x.size(-2) > x.size(-1)
    if tall:
        x = x.mT
    x = x / x.norm(dim=(-2, -1), keepdim=True).clamp(min=eps)
    for _ in range(steps):
        gram = x @ x.mT
        poly = torch.baddbmm(gram, gram, gram, beta=b, alpha=c)
        x = torch.baddbmm(x, poly, x, beta=a)
    return x.mT if tall else x


def _full(t: torch.Tensor) -> torch.Tensor:
    full_tensor = getattr(t, "full_tensor", None)  # a DTensor (FSDP2): gather the whole tensor
    return full_tensor() if callable(full_tensor) else t


def _like(update: torch.Tensor, param: torch.Tensor) -> torch.Tensor:
    """``update`` (a full tensor) in ``param``'s layout: this rank's shard when ``param`` is a DTensor."""
    mesh = getattr(param, "device_mesh", None)
    if mesh is None:
        return update
    from torch.distributed.tensor import distribute_tensor

    # Every rank holds the same full update, so each keeps its own shard without communication.
    return distribute_tensor(update, mesh, param.placements, src_data_rank=None)  # type: ignore[attr-defined]


class Muon(torch.optim.Optimizer):
    """Muon (momentum, Nesterov, Newton–Schulz orthogonalisation, decoupled weight decay).

    Same update as ``torch.optim.Muon`` for a 2-D weight; a 3-D weight is a stack of matrices on its
    first axis, each orthogonalised alone; a group's ``matrices_per_slice`` further splits each slice on
    its output axis (fused gate/up projections).
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        weight_decay: float = 0.1,
        momentum: float = 0.95,
        nesterov: bool = True,
        ns_steps: int = 5,
        eps: float = 1e-7,
        adjust_lr_fn: str = "original",
        matrices_per_slice: int = 1,
    ) -> None:
        if adjust_lr_fn not in ADJUST_LR_FNS:
            raise ValueError(f"unknown adjust_lr_fn {adjust_lr_fn!r}; expected {', '.join(ADJUST_LR_FNS)}")
        defaults = {
            "lr": lr, "weight_decay": weight_decay, "momentum": momentum, "nesterov": nesterov,
            "ns_steps": ns_steps, "eps": eps, "adjust_lr_fn": adjust_lr_fn,
            "matrices_per_slice": matrices_per_slice,
        }
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim not in (2, 3):
                    raise ValueError(f"Muon takes 2-D or 3-D (stacked expert) weights, not {tuple(p.shape)}")

    @torch.no_grad()
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            lr, momentum, k = group["lr"], group["momentum"], group["matrices_per_slice"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if "momentum_buffer" not in state:
                    state["momentum_buffer"] = torch.zeros_like(p.grad)
                buf = state["momentum_buffer"]
                buf.lerp_(p.grad, 1 - momentum)
                update = p.grad.lerp(buf, momentum) if group["nesterov"] else buf
                full = _full(update)
                shape = full.shape
                slices = full.reshape(-1, shape[-2], shape[-1])  # 2-D: one matrix; 3-D: one per expert
                rows, cols = shape[-2] // k, shape[-1]
                matrices = slices.reshape(-1, rows, cols)  # gate and up halves apart when k == 2
                ortho = orthogonalise(matrices, group["ns_steps"], group["eps"]).reshape(shape)
                p.mul_(1 - lr * group["weight_decay"])
                step_lr = _adjusted_lr(lr, group["adjust_lr_fn"], rows, cols)
                p.add_(_like(ortho.to(full.dtype), p), alpha=-step_lr)
        return loss


class MuonWithAdamW(torch.optim.Optimizer):
    """Steps a Muon and an AdamW optimizer together behind one Optimizer interface.

    ``param_groups`` holds the sub-optimizers' own group dicts, so an LR scheduler (the Trainer's cosine
    warmup) that writes ``group["lr"]`` drives both, and accelerate's FSDP2 preparation, which swaps each
    group's ``params`` for the sharded ones, reaches both. State dicts nest the two sub-optimizers' states.
    """

    def __init__(self, muon: torch.optim.Optimizer, adamw: torch.optim.Optimizer) -> None:
        self.muon = muon
        self.adamw = adamw
        # The base class stores the very same group dicts (add_param_group appends the dict it gets).
        super().__init__([*muon.param_groups, *adamw.param_groups], defaults={})

    @torch.no_grad()
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
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
    groups = split_named_parameters(model)
    if not groups["muon"]:
        raise ValueError("the model has no 2-D hidden weights for Muon")
    by_split: dict[int, list[nn.Parameter]] = {}
    for name, p in groups["muon"]:
        by_split.setdefault(matrices_per_slice(name, p.shape), []).append(p)
    muon = Muon(
        [{"params": ps, "matrices_per_slice": k} for k, ps in sorted(by_split.items())],
        lr=lr,
        weight_decay=weight_decay,
        momentum=momentum,
        ns_steps=ns_steps,
        adjust_lr_fn=adjust_lr_fn,
    )
    adam_groups = [
        {"params": [p for _, p in groups["adamw_decay"]], "weight_decay": weight_decay},
        {"params": [p for _, p in groups["adamw_no_decay"]], "weight_decay": 0.0},
    ]
    adamw = torch.optim.AdamW([g for g in adam_groups if g["params"]], lr=lr, betas=betas, eps=eps)
    return MuonWithAdamW(muon, adamw)

"""Muon + AdamW: the parameter split, one LR schedule for both, state round trip."""

from __future__ import annotations

import torch
from torch import nn

from training.muon import Muon, build_optimizer, split_parameters


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


# --- Muon itself: equal to torch.optim.Muon per matrix, for 2-D weights and stacked experts ----------------

def _steps(opt: torch.optim.Optimizer, params: list[torch.Tensor], grads: list[list[torch.Tensor]]) -> None:
    for step_grads in grads:
        for p, g in zip(params, step_grads, strict=True):
            p.grad = g.clone()
        opt.step()


def _grads(shape: tuple[int, ...], steps: int, seed: int) -> list[list[torch.Tensor]]:
    gen = torch.Generator().manual_seed(seed)
    return [[torch.randn(shape, generator=gen)] for _ in range(steps)]


def test_a_2d_weight_gets_the_update_torch_muon_gives() -> None:
    torch.manual_seed(0)
    w0 = torch.randn(12, 7)
    ours, ref = nn.Parameter(w0.clone()), nn.Parameter(w0.clone())
    grads = _grads((12, 7), 3, seed=1)
    _steps(Muon([ours], lr=0.02, weight_decay=0.1, adjust_lr_fn="match_rms_adamw"), [ours], grads)
    _steps(torch.optim.Muon([ref], lr=0.02, weight_decay=0.1, adjust_lr_fn="match_rms_adamw"), [ref], grads)
    assert not torch.equal(ours.data, w0)
    torch.testing.assert_close(ours.data, ref.data, atol=2e-3, rtol=1e-2)


def test_each_expert_of_a_fused_tensor_is_its_own_matrix() -> None:
    """A (experts, out, in) tensor moves exactly as its experts would as separate 2-D weights."""
    experts, out, inp = 3, 10, 6
    w0 = torch.randn(experts, out, inp)
    fused = nn.Parameter(w0.clone())
    grads = _grads((experts, out, inp), 3, seed=2)
    _steps(Muon([fused], lr=0.05, weight_decay=0.05, adjust_lr_fn="match_rms_adamw"), [fused], grads)
    for e in range(experts):
        alone = nn.Parameter(w0[e].clone())
        ref = torch.optim.Muon([alone], lr=0.05, weight_decay=0.05, adjust_lr_fn="match_rms_adamw")
        _steps(ref, [alone], [[g[0][e]] for g in grads])
        torch.testing.assert_close(fused.data[e], alone.data, atol=2e-3, rtol=1e-2)
    # Orthogonalising the stack as one flat matrix would not give the same result.
    flat = nn.Parameter(w0.reshape(experts * out, inp).clone())
    _steps(torch.optim.Muon([flat], lr=0.05, weight_decay=0.05, adjust_lr_fn="match_rms_adamw"), [flat],
           [[g[0].reshape(experts * out, inp)] for g in grads])
    assert not torch.allclose(flat.data.reshape(experts, out, inp), fused.data, atol=1e-2)


def test_a_fused_gate_up_tensor_is_split_into_gate_and_up() -> None:
    experts, inter, hidden = 2, 5, 8
    w0 = torch.randn(experts, 2 * inter, hidden)
    fused = nn.Parameter(w0.clone())
    grads = _grads(tuple(w0.shape), 2, seed=3)
    _steps(Muon([fused], lr=0.05, weight_decay=0.0, adjust_lr_fn="match_rms_adamw", matrices_per_slice=2),
           [fused], grads)
    for e in range(experts):
        for half in (slice(0, inter), slice(inter, 2 * inter)):
            alone = nn.Parameter(w0[e, half].clone())
            ref = torch.optim.Muon([alone], lr=0.05, weight_decay=0.0, adjust_lr_fn="match_rms_adamw")
            _steps(ref, [alone], [[g[0][e, half]] for g in grads])
            torch.testing.assert_close(fused.data[e, half], alone.data, atol=2e-3, rtol=1e-2)


# --- The split on real architectures built from configs -----------------------------------------------------

def _names(model: nn.Module, params: list[nn.Parameter]) -> set[str]:
    ids = {id(p) for p in params}
    return {n for n, p in model.named_parameters() if id(p) in ids}


def test_dense_llama_split() -> None:
    from transformers import LlamaConfig, LlamaForCausalLM

    model = LlamaForCausalLM(LlamaConfig(
        vocab_size=64, hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, tie_word_embeddings=False))
    groups = split_parameters(model)
    projections = {f"model.layers.{i}.{m}.weight" for i in range(2) for m in (
        "self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
        "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj")}
    assert _names(model, groups["muon"]) == projections
    assert _names(model, groups["adamw_decay"]) == {"model.embed_tokens.weight", "lm_head.weight"}
    assert all(p.ndim == 1 for p in groups["adamw_no_decay"]) and groups["adamw_no_decay"]


def _tiny_moe() -> nn.Module:
    from transformers import Qwen3MoeConfig, Qwen3MoeForCausalLM

    torch.manual_seed(0)
    return Qwen3MoeForCausalLM(Qwen3MoeConfig(
        vocab_size=64, hidden_size=32, intermediate_size=48, moe_intermediate_size=16, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, num_experts=4, num_experts_per_tok=2,
        decoder_sparse_step=1, mlp_only_layers=[1], max_position_embeddings=64))


def test_moe_experts_get_muon_and_the_router_gets_adamw() -> None:
    model = _tiny_moe()
    groups = split_parameters(model)
    muon = _names(model, groups["muon"])
    # Layer 0 is sparse (fused experts + router), layer 1 dense (mlp_only_layers).
    assert {"model.layers.0.mlp.experts.gate_up_proj", "model.layers.0.mlp.experts.down_proj"} <= muon
    assert {"model.layers.1.mlp.gate_proj.weight", "model.layers.1.mlp.up_proj.weight"} <= muon
    assert "model.layers.0.mlp.gate.weight" in _names(model, groups["adamw_decay"])
    assert not any("mlp.gate.weight" in n for n in muon)
    fused = [p for p in groups["muon"] if p.ndim == 3]
    assert len(fused) == 2 and all(p.shape[0] == 4 for p in fused)


def test_a_tiny_moe_trains_with_every_expert_tensor_under_muon() -> None:
    model = _tiny_moe()
    opt = build_optimizer(model, lr=0.01, weight_decay=0.0)
    experts = dict(model.named_parameters())["model.layers.0.mlp.experts.down_proj"]
    router = dict(model.named_parameters())["model.layers.0.mlp.gate.weight"]
    assert any(experts is p for g in opt.muon.param_groups for p in g["params"])
    assert any(router is p for g in opt.adamw.param_groups for p in g["params"])
    gate_up_groups = [g for g in opt.muon.param_groups if g["matrices_per_slice"] == 2]
    assert [p.shape for g in gate_up_groups for p in g["params"]] == [torch.Size([4, 32, 32])]
    before = experts.detach().clone()
    ids = torch.randint(0, 64, (2, 12), generator=torch.Generator().manual_seed(0))
    losses = []
    for _ in range(15):
        loss = model(input_ids=ids, labels=ids).loss
        losses.append(loss.item())
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert losses[-1] < 0.7 * losses[0]
    assert not torch.equal(before, experts.detach())

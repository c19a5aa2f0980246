"""`--tiny-from DIR`: a seeded tiny model of a second architecture (Llama, with the real Llama 3.1
tokenizer and chat template from the npm dev dependency), served and teacher-forced exactly as the
tiny Qwen3 is. The engine runs as its own subprocess; the twin is built in this process."""

from __future__ import annotations

import json

import pytest
import torch

from envroll_engine.model import eos_token_ids, load
from envroll_engine.scoring import token_logprobs
from envroll_engine.tiny_folders import LLAMA_3_1, write_tiny_folder

from engine_spawn import SEED, Spawned

TOL = 1e-5
EOT = 128009  # <|eot_id|>


@pytest.fixture(scope="module")
def llama_dir(tmp_path_factory):
    return write_tiny_folder("llama", tmp_path_factory.mktemp("tiny-llama"))


@pytest.fixture(scope="module")
def llama_engine(llama_dir):
    spawned = Spawned(weights=("--tiny-from", str(llama_dir)))
    try:
        yield spawned.ready()
    finally:
        spawned.stop()


@pytest.fixture(scope="module")
def llama_twin(llama_dir):
    torch.set_num_threads(1)
    return load(model_dir=None, tiny=False, seed=SEED, tiny_from=str(llama_dir))


def chat_ids(tokenizer, messages):
    text = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
    return tokenizer.encode(text, add_special_tokens=False)


def sample(engine, prompt, seed, **sp):
    body = {
        "input_ids": prompt,
        "return_logprob": True,
        "sampling_params": {"max_new_tokens": 24, "sampling_seed": seed, "ignore_eos": True, **sp},
    }
    out = engine.generate(body)
    return out["output_ids"], [t[0] for t in out["meta_info"]["output_token_logprobs"]]


def max_diff(model, prompt, ids, lps, temperature):
    ref = token_logprobs(model, prompt + ids, len(prompt), temperature=temperature)
    return (torch.tensor(lps, dtype=torch.float64) - ref.double()).abs().max().item()


def test_folder_is_a_llama_checkpoint_without_weights(llama_dir, llama_twin):
    assert sorted(p.name for p in llama_dir.iterdir()) == [
        "chat_template.jinja",
        "config.json",
        "tokenizer.json",
        "tokenizer_config.json",
    ]
    m, tok = llama_twin.model, llama_twin.tokenizer
    assert type(m).__name__ == "LlamaForCausalLM" and m.config.vocab_size == len(tok) == LLAMA_3_1["vocab_size"]
    assert llama_twin.model_path == "tiny-llama-seed0"
    # The template is the package's: BOS, then Llama 3 headers, then the open assistant header.
    ids = chat_ids(tok, [{"role": "user", "content": "hi"}])
    assert ids[0] == LLAMA_3_1["bos_token_id"] and ids[-4:] == tok.encode(
        "<|start_header_id|>assistant<|end_header_id|>\n\n", add_special_tokens=False
    )
    assert eos_token_ids(m, tok) == LLAMA_3_1["eos_token_id"]


def test_model_info_follows_the_config(llama_engine, llama_dir):
    _, info = llama_engine.get("/get_model_info")
    assert info["architectures"] == LLAMA_3_1["architectures"] and info["model_type"] == "llama"
    assert info["model_path"] == "tiny-llama-seed0" and info["tokenizer_path"] == str(llama_dir)
    _, server = llama_engine.get("/get_server_info")
    assert server["vocab_size"] == LLAMA_3_1["vocab_size"]
    assert server["eos_token_ids"] == LLAMA_3_1["eos_token_id"]
    assert server["max_model_len"] == LLAMA_3_1["max_position_embeddings"]


@pytest.mark.parametrize("temperature,extra", [(1.0, {}), (0.7, {"top_k": 50, "top_p": 0.9})])
def test_generate_matches_teacher_forcing_over_two_turns(llama_engine, llama_twin, temperature, extra):
    tok = llama_twin.tokenizer
    prompt = chat_ids(tok, [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Count."}])
    ids, lps = sample(llama_engine, prompt, 3, temperature=temperature, **extra)
    assert len(ids) == 24 and all(0 <= i < len(tok) for i in ids)
    assert max_diff(llama_twin.model, prompt, ids, lps, temperature) <= TOL
    # The second turn continues the exact sampled ids (a bridged prompt), closed by <|eot_id|>.
    env = [EOT] + tok.encode("<|start_header_id|>user<|end_header_id|>\n\nMore.<|eot_id|>", add_special_tokens=False)
    env += tok.encode("<|start_header_id|>assistant<|end_header_id|>\n\n", add_special_tokens=False)
    prompt2 = prompt + ids + env
    ids2, lps2 = sample(llama_engine, prompt2, 4, temperature=temperature, **extra)
    assert max_diff(llama_twin.model, prompt2, ids2, lps2, temperature) <= TOL


def test_same_seed_same_weights_other_seed_differs(llama_dir, llama_twin):
    again = load(model_dir=None, tiny=False, seed=SEED, tiny_from=str(llama_dir)).model.state_dict()
    other = load(model_dir=None, tiny=False, seed=SEED + 1, tiny_from=str(llama_dir)).model.state_dict()
    mine = llama_twin.model.state_dict()
    assert all(torch.equal(mine[k], again[k]) for k in mine)
    assert not torch.equal(mine["model.embed_tokens.weight"], other["model.embed_tokens.weight"])


def test_config_errors_name_the_problem(llama_dir, tmp_path):
    small = tmp_path / "small"
    write_tiny_folder("llama", small)
    cfg = json.loads((small / "config.json").read_text())
    (small / "config.json").write_text(json.dumps({**cfg, "vocab_size": 1000}))
    with pytest.raises(ValueError, match="vocab_size 1000 is smaller than the tokenizer's 128256"):
        load(model_dir=None, tiny=False, seed=SEED, tiny_from=str(small))
    (small / "config.json").unlink()
    with pytest.raises(FileNotFoundError, match="no config.json"):
        load(model_dir=None, tiny=False, seed=SEED, tiny_from=str(small))
    with pytest.raises(ValueError, match="unknown tiny architecture 'mamba'"):
        write_tiny_folder("mamba", tmp_path / "m")


def test_train_check_tiny_from_steps_and_reloads_the_engine(llama_engine, llama_dir, llama_twin, tmp_path, capsys):
    """Last in this module: it moves the engine's weights. Two groups of two one-turn samples."""
    from envroll_engine import train_check

    tok = llama_twin.tokenizer
    groups = []
    for g in range(2):
        prompt = chat_ids(tok, [{"role": "user", "content": f"Say {g}."}])
        group = []
        for i in range(2):
            ids, lps = sample(llama_engine, prompt, 10 * g + i, max_new_tokens=6)
            group.append(
                {
                    "tokens": prompt + ids,
                    "response_length": len(ids),
                    "loss_mask": [1] * len(ids),
                    "rollout_log_probs": lps,
                    "reward": float(i),
                    "group_index": g,
                    "index": 2 * g + i,
                }
            )
        groups.append(group)
    samples = tmp_path / "samples.json"
    samples.write_text(json.dumps(groups))
    out = tmp_path / "step1"
    args = ["--samples", str(samples), "--tiny-from", str(llama_dir), "--out-model", str(out)]
    rc = train_check.main([*args, "--engine", llama_engine.url, "--weight-version", "step1"])
    line = capsys.readouterr().out.strip()
    assert rc == 0, line
    fields = dict(kv.split("=") for kv in line.split()[1:])
    assert fields["masked_tokens"] == "24" and float(fields["logprob_max_abs_diff"]) < 1e-5
    _, info = llama_engine.get("/get_model_info")
    assert info["weight_version"] == "step1" and info["model_path"] == str(out.resolve())
    assert info["architectures"] == LLAMA_3_1["architectures"] and info["model_type"] == "llama"

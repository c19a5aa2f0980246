"""The dry run takes the model as Miles does: --sglang-tokenizer-path first, then --hf-checkpoint."""

from envroll_miles import dry_run
from envroll_miles.settings import renderer_identity

BASE = ["--config", "env.toml", "--engine", "http://127.0.0.1:30000", "--rollout-batch-size", "1", "--dump", "o.json"]


def test_hf_checkpoint_names_the_model():
    args = dry_run.build_args(dry_run.parse([*BASE, "--hf-checkpoint", "Qwen/Qwen3-8B"]))
    assert renderer_identity(args) == {"model": "Qwen/Qwen3-8B"}


def test_tokenizer_path_wins_and_a_folder_with_tokenizer_json_is_the_tokenizer(tmp_path):
    (tmp_path / "tokenizer.json").write_text("{}")
    argv = [*BASE, "--hf-checkpoint", "Qwen/Qwen3-8B", "--sglang-tokenizer-path", str(tmp_path)]
    ident = renderer_identity(dry_run.build_args(dry_run.parse(argv)))
    assert ident == {"model": str(tmp_path), "tokenizer_path": str(tmp_path)}


def test_without_either_the_config_model_is_used():
    assert renderer_identity(dry_run.build_args(dry_run.parse(BASE))) == {}

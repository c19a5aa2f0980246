"""Reading and checking Miles samples (no model, no engine)."""

from __future__ import annotations

import json

import pytest

from envroll_engine.samples import check_samples, group_advantages_by_rollout, read_groups


def sample(index, reward, group=0, rollout_id=None, R=2, **kw):
    s = {
        "tokens": [1, 2, 3] + [4] * R,
        "response_length": R,
        "loss_mask": [1] * R,
        "rollout_log_probs": [-1.0] * R,
        "reward": reward,
        "group_index": group,
        "index": index,
        "rollout_id": rollout_id,
    }
    s.update(kw)
    return s


def test_groups_flat_json_and_jsonl_agree(tmp_path):
    flat = [sample(0, 1.0, 0), sample(1, 0.0, 1), sample(2, 0.0, 0)]
    (tmp_path / "a.json").write_text(json.dumps(flat))
    (tmp_path / "b.jsonl").write_text("\n".join(json.dumps(s) for s in flat) + "\n")
    (tmp_path / "c.json").write_text(json.dumps([[flat[0], flat[2]], [flat[1]]]))
    a, b, c = (read_groups(str(tmp_path / n)) for n in ("a.json", "b.jsonl", "c.json"))
    assert a == b == c
    assert [[s["index"] for s in g] for g in a] == [[0, 2], [1]]


def test_compact_rollouts_count_once_in_normalization(tmp_path):
    siblings = [sample(5, 1.0, rollout_id=7), sample(6, 1.0, rollout_id=7)]
    (tmp_path / "g.json").write_text(json.dumps([[siblings, sample(8, 0.0)]]))
    [group] = read_groups(str(tmp_path / "g.json"))
    assert len(group) == 3
    adv = group_advantages_by_rollout(group, None)
    # Two rollouts with rewards (1, 0): centered ±0.5 / (unbiased std 0.7071 + 1e-6) ≈ ±0.7071
    assert adv[0] == adv[1] == pytest.approx(0.7071, abs=1e-3) and adv[2] == pytest.approx(-0.7071, abs=1e-3)


def test_sibling_reward_mismatch_is_an_error():
    group = [sample(1, 1.0, rollout_id=3), sample(2, 0.5, rollout_id=3)]
    checked, errors = check_samples([group], None)
    assert not checked and "different rewards" in errors[0]


def test_dict_reward_needs_key():
    group = [sample(1, {"acc": 1.0}), sample(2, {"acc": 0.0})]
    assert "--reward-key" in check_samples([group], None)[1][0]
    checked, errors = check_samples([group], "acc")
    assert not errors and [c.advantage > 0 for c in checked] == [True, False]


def test_remove_sample_zeroes_the_training_mask_only():
    [c] = check_samples([[sample(1, 1.0, remove_sample=True)]], None)[0]
    assert c.loss_mask == [1, 1] and c.train_mask == [0, 0]


@pytest.mark.parametrize(
    "patch,needle",
    [
        ({"loss_mask": [1]}, "len(loss_mask)"),
        ({"rollout_log_probs": [-1.0] * 3}, "len(rollout_log_probs)"),
        ({"tokens": [4, 4]}, "non-empty prompt"),
        ({"loss_mask": [1, 2]}, "0 or 1"),
        ({"rollout_log_probs": None}, "len(rollout_log_probs)"),
    ],
)
def test_alignment_errors(patch, needle):
    errors = check_samples([[sample(1, 1.0, **patch)]], None)[1]
    assert any(needle in e for e in errors), errors


def test_null_loss_mask_means_all_ones():
    [c] = check_samples([[sample(1, 1.0, loss_mask=None)]], None)[0]
    assert c.loss_mask == [1, 1]

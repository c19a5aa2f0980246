"""Writes a local Hugging Face datasets cache holding `rows` as hub dataset NAME (split train), so
an environment's `load_dataset(NAME, split="train")` reads it with HF_DATASETS_CACHE=CACHE and
HF_DATASETS_OFFLINE=1 — local data without editing the environment. Built with `datasets`
itself (a json load), then filed under the hub name the way the offline cache lookup finds it.

    python hf_cache.py NAME ROWS.jsonl CACHE
"""

import json
import os
import shutil
import sys
from pathlib import Path

from datasets import load_dataset


def main(name: str, rows: str, cache: str) -> None:
    build = Path(cache) / "_build"
    load_dataset("json", data_files={"train": rows}, cache_dir=str(build), split="train")
    src = next(p for p in (build / "json").glob("*/*/*") if p.is_dir())
    namespace, dataset = name.split("/")
    dst = Path(cache) / f"{namespace}___{dataset}" / "default" / "0.0.0" / src.name
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(src, dst, dirs_exist_ok=True)
    info = json.loads((dst / "dataset_info.json").read_text())
    # The offline lookup keeps a cache folder whose recorded config is the folder's config name.
    info["config_name"] = "default"
    (dst / "dataset_info.json").write_text(json.dumps(info))
    for f in dst.glob("json-*.arrow"):
        f.rename(dst / f.name.replace("json-", f"{dataset}-", 1))
    shutil.rmtree(build)
    print(dst)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    main(*sys.argv[1:])

"""Times the Python binding of HF `tokenizers` (Rust, synchronous) encoding a list of texts.

Usage: python3 native_encode.py TOKENIZER_JSON TEXTS_JSON PASSES
TEXTS_JSON is a list of passes, each a list of strings. Prints one JSON line: tokens/s per pass.
The first pass list is a warm-up and is not reported.
"""

import json
import sys
import time

from tokenizers import Tokenizer

tok = Tokenizer.from_file(sys.argv[1])
with open(sys.argv[2], encoding="utf-8") as f:
    passes = json.load(f)
rates = []
for i, texts in enumerate(passes):
    t0 = time.perf_counter()
    tokens = 0
    for text in texts:
        tokens += len(tok.encode(text, add_special_tokens=False).ids)
    dt = time.perf_counter() - t0
    if i > 0:
        rates.append(tokens / dt)
print(json.dumps({"tokens_per_s": rates}))

"""`python -m envroll_v1host`: serve the NDJSON protocol on stdin/stdout until stdin closes."""

import asyncio
import os
import sys

from envroll_v1host.protocol import serve


def main() -> None:
    # The protocol owns the real stdout; anything the taskset prints goes to stderr instead, so a
    # stray print() in an environment cannot corrupt a response line.
    proto_out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    asyncio.run(serve(proto_out))


if __name__ == "__main__":
    main()

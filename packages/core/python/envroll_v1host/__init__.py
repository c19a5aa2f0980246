"""envroll's host for Python Verifiers V1 tasksets.

envroll (TypeScript) starts one `python -m envroll_v1host` per process and talks to it over
NDJSON on stdin/stdout (see protocol.py). The host imports the taskset's own module and runs its
code through verifiers' classes: config validation, `load()`, Task hooks, `@stop`, the user
simulator, toolsets and scoring. envroll keeps the episode loop, interception, tokens and traces.
"""

PROTOCOL_VERSION = 1

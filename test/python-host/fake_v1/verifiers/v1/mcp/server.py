from verifiers.v1 import _call_state  # noqa: F401  (FAKE, see README)

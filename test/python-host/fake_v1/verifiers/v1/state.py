from verifiers.v1 import State, state_cls  # noqa: F401  (FAKE, see README)

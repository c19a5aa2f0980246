from verifiers.v1 import MessageNode  # noqa: F401  (FAKE, see README)

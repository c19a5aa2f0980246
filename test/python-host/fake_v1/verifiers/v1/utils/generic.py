from verifiers.v1 import generic_type  # noqa: F401  (FAKE, see README)

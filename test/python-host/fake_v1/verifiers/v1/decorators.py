from verifiers.v1 import discover_decorated  # noqa: F401  (FAKE, see README)

from verifiers.v1 import Trace, TraceTask  # noqa: F401  (FAKE, see README)

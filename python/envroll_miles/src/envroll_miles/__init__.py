"""envroll_miles: run envroll environments as a Miles rollout function.

    --rollout-function-path envroll_miles.EnvrollRolloutFn --disable-rollout-global-dataset
    --envroll-config env.toml
"""

from .miles_types import load_types
from .rollout_fn import EnvrollRolloutFn, add_arguments, generate_rollout
from .validation import MESSAGES, EnvrollConfigError

__all__ = ["EnvrollRolloutFn", "generate_rollout", "add_arguments", "load_types", "EnvrollConfigError", "MESSAGES"]

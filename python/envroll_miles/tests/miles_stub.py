"""A fake ``miles`` package for tests (Miles itself cannot be installed here).

It exposes the envroll_miles stand-ins under Miles' module paths, so the adapter takes its
"Miles is importable" branch. The stand-in ``Sample`` carries Miles' exact field list, which
``test_stand_in_has_miles_exact_field_list`` pins down.
"""

from __future__ import annotations

import sys
import types

from envroll_miles import miles_types as mt

MODULES = ["miles", "miles.rollout", "miles.rollout.base_types", "miles.utils", "miles.utils.types"]


def install() -> None:
    for name in MODULES:
        sys.modules[name] = types.ModuleType(name)
    bt = sys.modules["miles.rollout.base_types"]
    bt.RolloutFnConstructorInput = mt.RolloutFnConstructorInputStandIn
    bt.RolloutFnTrainInput = mt.RolloutFnTrainInputStandIn
    bt.RolloutFnEvalInput = mt.RolloutFnEvalInputStandIn
    bt.RolloutFnTrainOutput = mt.RolloutFnTrainOutputStandIn
    bt.RolloutFnEvalOutput = mt.RolloutFnEvalOutputStandIn
    sys.modules["miles.utils.types"].Sample = mt.SampleStandIn
    mt.reset_types_cache()


def uninstall() -> None:
    for name in MODULES:
        sys.modules.pop(name, None)
    mt.reset_types_cache()

"""envroll_engine: a CPU transformers model behind SGLang's native HTTP protocol.

The package exists so envroll's TypeScript rollout stack can be checked end to end against a
real (tiny) causal LM: rollouts talk to `envroll_engine.server`, and `envroll_engine.train_check`
re-scores the resulting samples by teacher forcing and takes one GRPO step.
"""

__version__ = "0.1.0"

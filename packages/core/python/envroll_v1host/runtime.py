"""The rollout's runtime, reached from Python: envroll owns it (subprocess or sandbox), so each
call is a callback over the protocol. Duck-types verifiers' `Runtime` for what task code uses:
`run`, `run_program`, `read`, `write`."""

from __future__ import annotations

import base64


class RemoteRuntime:
    is_local = True

    def __init__(self, host, rollout: str, kind: str) -> None:
        self._host = host
        self._rollout = rollout
        self.type = kind

    def _result(self, r: dict):
        from verifiers.v1.runtimes.base import ProgramResult

        code = r.get("exit_code")
        return ProgramResult(exit_code=-1 if code is None else code, stdout=r["stdout"], stderr=r["stderr"])

    async def run(self, argv: list[str], env: dict[str, str] | None = None):
        r = await self._host.call("runtime.run", rollout=self._rollout, argv=list(argv), env=dict(env or {}))
        return self._result(r)

    async def run_program(self, argv: list[str], env: dict[str, str] | None = None):
        return await self.run(argv, env)

    async def read(self, path: str) -> bytes:
        r = await self._host.call("runtime.read", rollout=self._rollout, path=path)
        return base64.b64decode(r["data"])

    async def write(self, path: str, data: bytes) -> None:
        if isinstance(data, str):
            data = data.encode()
        await self._host.call(
            "runtime.write", rollout=self._rollout, path=path, data=base64.b64encode(data).decode()
        )

"""A taskset written against the FAKE verifiers (../README.md), for the host's protocol tests.

`fail` picks a hook that raises (setup, stop, user, score, group) or `exit` (the host process
dies while scoring) or `slow` (scoring waits until the test kills the host).
"""

import asyncio
import os

import verifiers.v1 as vf


class FakeState(vf.State):
    finished: bool = False
    turns: int = 0


class FakeData(vf.TaskData):
    answer: str


class FakeTaskConfig(vf.TaskConfig):
    bonus: float = 0.0


class FakeConfig(vf.TasksetConfig):
    size: int = 3
    fail: str = ""
    user_opens: bool = False
    task: FakeTaskConfig = FakeTaskConfig()


def _boom(where):
    raise ValueError(f"fake failure in {where}")


class FakeUser(vf.User):
    async def setup_task(self, task):
        self.answer = task.answer

    async def respond(self, message):
        if os.environ.get("FAKE_V1_FAIL") == "user" or message == "FAIL-USER":
            _boom("user")
        self.state.turns += 1
        if message == "":
            return [{"role": "user", "content": f"Say {self.answer}."}]
        if self.answer in message:
            self.state.finished = True
            return []
        return [{"role": "user", "content": "Try again."}]


class FakeTask(vf.Task[FakeData, FakeState]):
    user = FakeUser

    @vf.stop
    async def finished(self, trace) -> bool:
        if trace.last_reply == "FAIL-STOP":
            _boom("stop")
        return bool(trace.state.finished)

    @vf.stop(priority=1)
    async def two_turns(self, trace) -> bool:
        return trace.num_turns >= 2

    async def setup(self, trace, runtime):
        if self.data.prompt == "FAIL-SETUP":
            _boom("setup")
        await runtime.write("note.txt", f"task {self.data.idx}".encode())

    @vf.metric
    async def echoed(self, trace, runtime) -> dict:
        # Reads back, through the runtime, what setup wrote: both directions of the callback.
        r = await runtime.run(["cat", "note.txt"], {})
        return {"echo_len": float(len(r.stdout)), "exit": float(r.exit_code)}

    @vf.reward(weight=0.5)
    async def exact(self, trace) -> float:
        if trace.last_reply == "FAIL-SCORE":
            _boom("score")
        if trace.last_reply == "EXIT":
            os._exit(3)
        if trace.last_reply == "SLOW":
            await asyncio.sleep(60)
        return 1.0 if self.data.answer in trace.last_reply else 0.0 + self.config.bonus

    @vf.group_reward(weight=0.25)
    async def first(self, traces) -> list:
        return [1.0 if i == 0 else 0.0 for i in range(len(traces))]


class FakeTaskset(vf.Taskset[FakeTask, FakeConfig]):
    # envroll's, not V1's: the answer is not readable with the agent's credential.
    hidden_fields = ["answer"]

    def load(self):
        prompts = ["say hi", "FAIL-SETUP", "say yo"]
        return [
            FakeTask(
                FakeData(idx=i, prompt=None if self.config.user_opens else prompts[i % 3], answer=f"ans{i}"),
                self.config.task,
            )
            for i in range(self.config.size)
        ]


__all__ = ["FakeTaskset"]
__version__ = "9.9.9"

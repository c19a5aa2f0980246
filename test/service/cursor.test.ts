import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Client, ModelRequest, ModelResponse } from "../../packages/core/src/clients/client.ts";
import { epochOrder, freshCursorState, TaskCursor } from "../../packages/core/src/service/cursor.ts";
import { ScopedClient } from "../../packages/core/src/service/scoped-client.ts";

describe("task cursor", () => {
  it("shuffled epochs are seeded permutations, different per epoch", () => {
    const a = epochOrder(50, true, 7, 0);
    assert.deepEqual(
      [...a].sort((x, y) => x - y),
      Array.from({ length: 50 }, (_, i) => i),
    );
    assert.deepEqual(epochOrder(50, true, 7, 0), a);
    assert.notDeepEqual(epochOrder(50, true, 7, 1), a);
    assert.notDeepEqual(epochOrder(50, true, 8, 0), a);
    assert.deepEqual(epochOrder(4, false, 7, 3), [0, 1, 2, 3]);
  });

  it("hands back returned tasks first and wraps into the next epoch", () => {
    const c = new TaskCursor(freshCursorState("t", 3, false, 0));
    c.beginRollout(0);
    const [a, b, d] = [c.take(), c.take(), c.take()];
    assert.deepEqual([a, b, d], [0, 1, 2]);
    c.complete(a);
    c.giveBack(b);
    // d is still in flight: a snapshot counts it as returned, never as done.
    assert.deepEqual(c.snapshot().returned, [1, 2]);
    c.complete(d);
    assert.equal(c.take(), 1);
    assert.equal(c.take(), 0);
    assert.equal(c.state.epoch, 1);
    assert.equal(c.release(d), true);
    assert.equal(c.release(d), false);
    assert.deepEqual(c.state.completed, [0]);
    assert.equal(c.state.completed_total, 1);
  });
});

class RecordingClient implements Client {
  readonly kind = "train" as const;
  aborted: (string | undefined)[] = [];
  release: (() => void) | null = null;
  async getResponse(_r: ModelRequest): Promise<ModelResponse> {
    await new Promise<void>((resolve) => {
      this.release = resolve;
    });
    return {} as ModelResponse;
  }
  async abort(sessionId?: string): Promise<void> {
    this.aborted.push(sessionId);
  }
  async close(): Promise<void> {}
}

describe("ScopedClient", () => {
  it("aborts only the sessions it has in flight, never the whole engine", async () => {
    const inner = new RecordingClient();
    const scoped = new ScopedClient(inner);
    await scoped.abort();
    assert.deepEqual(inner.aborted, []);
    const pending = scoped.getResponse({ sessionId: "s1", messages: [], tools: [], sampling: {}, turn: 0 });
    await scoped.abort();
    assert.deepEqual(inner.aborted, ["s1"]);
    inner.release?.();
    await pending;
    await scoped.abort();
    assert.deepEqual(inner.aborted, ["s1"]);
  });
});

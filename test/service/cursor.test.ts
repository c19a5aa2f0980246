import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Client, ModelRequest, ModelResponse } from "../../packages/core/src/clients/client.ts";
import {
  epochOrder,
  freshCursorState,
  migrateCursorState,
  TaskCursor,
} from "../../packages/core/src/service/cursor.ts";
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

  it("hands back returned slots first, in their original order, and wraps into the next epoch", () => {
    const c = new TaskCursor(freshCursorState("t", 3, false, 0));
    c.beginRollout(0);
    const [a, b, d] = [c.take(), c.take(), c.take()];
    assert.deepEqual(
      [a, b, d].map((t) => t.task),
      [0, 1, 2],
    );
    c.complete(a);
    c.giveBack(d);
    c.giveBack(b);
    // Given back late-first, handed out early-first: a returned task keeps its place.
    assert.deepEqual(c.snapshot().returned, [1, 2]);
    assert.deepEqual(c.take(), b);
    assert.deepEqual(c.take(), d);
    c.complete(d);
    const next = c.take();
    assert.deepEqual(next, { task: 0, slot: 3 });
    assert.equal(c.state.epoch, 1);
    assert.equal(c.release(d), true);
    assert.equal(c.release(d), false);
    assert.deepEqual(c.state.completed, [0]);
    assert.equal(c.state.completed_total, 1);
    // b and next are still in flight: a snapshot counts them as returned, never as done.
    assert.deepEqual(c.snapshot().returned, [1, 2, 3]);
  });

  it("a slot returned across an epoch boundary runs its own epoch's task (shuffled orders)", () => {
    const c = new TaskCursor(freshCursorState("t", 5, true, 9));
    const first = Array.from({ length: 5 }, () => c.take());
    c.giveBack(first[4]!);
    assert.deepEqual(c.take(), first[4]);
    const second = Array.from({ length: 5 }, () => c.take());
    assert.deepEqual(
      second.map((t) => t.slot),
      [5, 6, 7, 8, 9],
    );
    c.giveBack(first[4]!);
    assert.equal(c.state.epoch, 1);
    assert.deepEqual(c.take(), first[4]);
  });

  it("version-1 states (returned task indices) load as slots of the current epoch", () => {
    const v1 = {
      ...freshCursorState("t", 4, true, 3),
      version: 1,
      epoch: 2,
      offset: 3,
      returned: [] as number[],
    };
    const order = epochOrder(4, true, 3, 2);
    v1.returned = [order[2]!, order[0]!];
    const s = migrateCursorState(v1 as unknown as Record<string, unknown>);
    assert.equal(s.version, 2);
    assert.deepEqual(s.returned, [8, 10]);
    assert.throws(() => migrateCursorState({ ...v1, version: 7 }), /unknown cursor state version 7/);
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

/** guess-number: the simulated user, the stops and the reward, driven turn by turn. */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { TraceView } from "../../packages/core/src/task.ts";
import { readGuess } from "../../packages/core/src/tasksets/guess-number/game.ts";
import guessNumber, {
  type GuessNumberData,
  secretFor,
} from "../../packages/core/src/tasksets/guess-number/index.ts";
import type { Message } from "../../packages/core/src/types.ts";
import { named } from "./named.ts";
import { traceView } from "./trace-view.ts";

const reward = named(guessNumber.rewards, "win");
const stop = async (task: GuessNumberData, trace: TraceView) => {
  for (const s of guessNumber.stops!) if (await s.fn({ task, trace, runtime: null })) return s.name;
  return null;
};

/** Plays a game with a guessing strategy, as the interception loop would drive it. */
async function play(task: GuessNumberData, strategy: (history: Message[]) => string) {
  const state: Record<string, unknown> = {};
  const messages: Message[] = [];
  // The simulator writes to the same state object the stops read, as on a live trace.
  const userLive = guessNumber.user!({ task, trace: traceView({ state }), runtime: null });
  messages.push(...(await userLive.respond("")));
  let stopped: string | null = null;
  for (let turn = 0; turn < 20 && stopped === null; turn++) {
    const reply = strategy(messages);
    messages.push({ role: "assistant", content: reply });
    messages.push(...(await userLive.respond(reply)));
    stopped = await stop(task, traceView({ messages: [...messages], state }));
  }
  const trace = traceView({
    messages: [...messages],
    state,
    lastReply: String(messages.at(-2)?.content ?? ""),
  });
  return { stopped, trace, score: await reward.fn({ task, trace, runtime: null }), messages };
}

function binarySearch(low: number, high: number) {
  let lo = low;
  let hi = high;
  let last = 0;
  return (history: Message[]) => {
    const hint = String(history.at(-1)?.content ?? "");
    if (hint.startsWith("Higher")) lo = last + 1;
    if (hint.startsWith("Lower")) hi = last - 1;
    last = Math.floor((lo + hi) / 2);
    return `My guess: <guess>${last}</guess>`;
  };
}

test("tasks have no prompt; secrets are seeded, in range and stable per idx", async () => {
  const tasks = await guessNumber.load({} as never);
  assert.equal(tasks.length, 200);
  assert.ok(tasks.every((t) => t.prompt === null && t.secret >= 1 && t.secret <= 100));
  assert.ok(new Set(tasks.map((t) => t.secret)).size > 50);
  assert.equal(tasks[17]!.secret, secretFor(0, 17, 1, 100));
  assert.notEqual(
    (await guessNumber.load({ seed: 1 } as never)).map((t) => t.secret).join(),
    tasks.map((t) => t.secret).join(),
  );
  await assert.rejects(async () => guessNumber.load({ low: 5, high: 5 } as never), /greater/);
});

test("the user opens with the rules, and binary search wins within 7 guesses", async () => {
  const tasks = await guessNumber.load({ size: 40 } as never);
  for (const task of tasks) {
    const { stopped, score, messages } = await play(task, binarySearch(1, 100));
    assert.match(String(messages[0]!.content), /between 1 and 100.*7 guesses/s);
    assert.equal(stopped, "guessed");
    const guesses = messages.filter((m) => m.role === "assistant").length;
    assert.ok(guesses <= 7);
    assert.equal(score, 1 - (guesses - 1) / 7);
    assert.match(String(messages.at(-1)!.content), /^Correct!/);
  }
});

test("a first-guess win scores 1; running out of guesses stops the game and scores 0", async () => {
  const task: GuessNumberData = { idx: 0, prompt: null, secret: 42, low: 1, high: 100, max_guesses: 7 };
  const lucky = await play(task, () => "<guess>42</guess>");
  assert.equal(lucky.score, 1);
  const stubborn = await play(task, () => "<guess>41</guess>");
  assert.equal(stubborn.stopped, "out_of_guesses");
  assert.equal(stubborn.messages.filter((m) => m.role === "assistant").length, 7);
  assert.equal(stubborn.score, 0);
  assert.match(String(stubborn.messages.at(-1)!.content), /^Higher\. \(0 guesses left\)/);
  const mute = await play(task, () => "I don't know");
  assert.match(String(mute.messages[2]!.content), /could not find a number/);
});

test("a win after max_guesses does not count (the transcript decides, not the state)", async () => {
  const task: GuessNumberData = { idx: 0, prompt: null, secret: 9, low: 1, high: 100, max_guesses: 2 };
  const msgs: Message[] = ["<guess>1</guess>", "<guess>2</guess>", "<guess>9</guess>"].map((c) => ({
    role: "assistant",
    content: c,
  }));
  assert.equal(await reward.fn({ task, trace: traceView({ messages: msgs }), runtime: null }), 0);
});

test("readGuess prefers the last tag, else the last integer", () => {
  assert.equal(readGuess("<guess>10</guess> no wait <guess>12</guess>"), 12);
  assert.equal(readGuess("between 1 and 100, I say 37"), 37);
  assert.equal(readGuess("no idea"), null);
});

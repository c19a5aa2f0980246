/**
 * The agent side of bench/agent-shape.ts, in its own process so that its cost (the SDKs building
 * and parsing ever longer requests) is not counted as envroll's. It plays N coding-agent episodes
 * through one dialect with the official SDKs, in lockstep: on `go k` every episode sends its
 * turn-k request, and `done k` goes back when all have their answer. The parent times its own
 * CPU between the two, so each turn index gets its own cost.
 *
 * Messages (IPC): ← init · → ready · ← go {turn} · → done {turn, promptTokens} · ← end ·
 * → history {messages} (episode 0's chat-format history, for the re-render yardstick) · exit.
 */
import { SDK_AGENTS, type SdkAgent } from "../test/interception/sdk-agents.ts";
import { type ShapeTool, taskPrompt, toolOutput } from "./lib/agent-shape.ts";

export interface DriverInit {
  type: "init";
  dialect: "chat" | "responses" | "anthropic";
  stream: boolean;
  sessions: { baseUrl: string; secret: string }[];
  system: string;
  tools: ShapeTool[];
  toolWords: number;
}

const MAX_TOKENS = 256;

let episodes: SdkAgent<unknown>[] = [];
let tools: ShapeTool[] = [];
let stream = false;
const send = (m: unknown) => process.send!(m);

process.on("message", async (m: DriverInit | { type: "go"; turn: number } | { type: "end" }) => {
  try {
    if (m.type === "init") {
      tools = m.tools;
      stream = m.stream;
      episodes = m.sessions.map(
        (s, e) =>
          SDK_AGENTS[m.dialect]({
            baseURL: s.baseUrl,
            apiKey: s.secret,
            system: m.system,
            task: taskPrompt(e),
            output: (step) => toolOutput(e, step, m.toolWords),
            maxTokens: MAX_TOKENS,
          }) as SdkAgent<unknown>,
      );
      send({ type: "ready" });
    } else if (m.type === "go") {
      const turns = await Promise.all(episodes.map((ep) => ep.turn(stream, tools)));
      send({ type: "done", turn: m.turn, promptTokens: turns[0]?.promptTokens });
    } else {
      send({ type: "history", messages: episodes[0]?.history ?? [] });
      process.disconnect();
    }
  } catch (e) {
    send({ type: "error", message: e instanceof Error ? `${e.message}\n${e.stack}` : String(e) });
    process.disconnect();
  }
});

/**
 * tool-math's problem templates. Each template renders a question from seeded parameters,
 * parses it back (so a solver that only sees the prompt can recover the parameters), and
 * yields its tool-call plan step by step from the results so far — the answer is whatever the
 * plan's last tool returns, computed with the very tools the model is given.
 */
import { formatNumber } from "./expression.ts";
import { calculateTool, convertTool } from "./tools.ts";
import { UNIT_NAMES } from "./units.ts";

export type Rng = () => number;

export interface PlannedCall {
  name: "calculate" | "convert";
  arguments: Record<string, unknown>;
}

type Params = Record<string, number | string>;

export interface Template {
  kind: string;
  generate(rng: Rng): Params;
  question(p: Params): string;
  /** Inverse of `question`; null when the text is not this template's. */
  parse(question: string): Params | null;
  /** The next call given the numeric results of the previous ones; null when done. */
  step(p: Params, results: readonly number[]): PlannedCall | null;
}

const NAME_TO_UNIT = Object.fromEntries(Object.entries(UNIT_NAMES).map(([u, n]) => [n, u]));
const name = (u: string | number) => UNIT_NAMES[String(u)]!;
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;
/** A number with `dp` decimals, as it would be written in a question. */
const num = (rng: Rng, lo: number, hi: number, dp = 0) => Number((lo + rng() * (hi - lo)).toFixed(dp));
const calc = (expression: string): PlannedCall => ({ name: "calculate", arguments: { expression } });
const conv = (value: number, from: string | number, to: string | number): PlannedCall => ({
  name: "convert",
  arguments: { value, from_unit: String(from), to_unit: String(to) },
});
const r = (x: number) => formatNumber(x);

const PAIRS: [string, string][] = [
  ["mi", "km"],
  ["km", "mi"],
  ["ft", "m"],
  ["in", "cm"],
  ["yd", "m"],
  ["lb", "kg"],
  ["kg", "lb"],
  ["oz", "g"],
  ["gal", "l"],
  ["cup", "ml"],
  ["day", "min"],
  ["h", "s"],
];

export const TEMPLATES: readonly Template[] = [
  {
    kind: "convert",
    generate: (rng) => {
      const [from, to] = pick(rng, PAIRS);
      return { v: num(rng, 1, 500, pick(rng, [0, 1, 2])), from, to };
    },
    question: (p) => `Convert ${p["v"]} ${name(p["from"]!)} to ${name(p["to"]!)}.`,
    parse: (q) => {
      const m = /^Convert ([\d.]+) ([a-z ]+?) to ([a-z ]+?)\.$/.exec(q);
      const from = m && NAME_TO_UNIT[m[2]!];
      const to = m && NAME_TO_UNIT[m[3]!];
      return m && from && to ? { v: Number(m[1]), from, to } : null;
    },
    step: (p, res) => (res.length === 0 ? conv(Number(p["v"]), p["from"]!, p["to"]!) : null),
  },
  {
    kind: "travel",
    generate: (rng) => {
      const u = pick(rng, ["mi", "km"]);
      return {
        s: num(rng, 20, 130),
        h: num(rng, 0.5, 9, 1),
        u,
        to: pick(rng, u === "mi" ? ["km", "m"] : ["mi", "ft"]),
      };
    },
    question: (p) =>
      `A train travels at ${p["s"]} ${name(p["u"]!)} per hour for ${p["h"]} hours. How far does it go, in ${name(p["to"]!)}?`,
    parse: (q) => {
      const m =
        /^A train travels at ([\d.]+) ([a-z]+) per hour for ([\d.]+) hours\. How far does it go, in ([a-z]+)\?$/.exec(
          q,
        );
      const u = m && NAME_TO_UNIT[m[2]!];
      const to = m && NAME_TO_UNIT[m[4]!];
      return m && u && to ? { s: Number(m[1]), u, h: Number(m[3]), to } : null;
    },
    step: (p, res) =>
      res.length === 0
        ? calc(`${p["s"]} * ${p["h"]}`)
        : res.length === 1
          ? conv(res[0]!, p["u"]!, p["to"]!)
          : null,
  },
  {
    kind: "shopping",
    generate: (rng) => ({
      n1: num(rng, 2, 12),
      p1: num(rng, 1, 9, 2),
      n2: num(rng, 2, 30),
      p2: num(rng, 0.25, 3, 2),
      t: pick(rng, [5, 6, 7.5, 8, 10, 20]),
    }),
    question: (p) =>
      `${p["n1"]} notebooks cost ${p["p1"]} dollars each and ${p["n2"]} pens cost ${p["p2"]} dollars each. What is the total in dollars after adding ${p["t"]}% sales tax?`,
    parse: (q) => {
      const m =
        /^(\d+) notebooks cost ([\d.]+) dollars each and (\d+) pens cost ([\d.]+) dollars each\. What is the total in dollars after adding ([\d.]+)% sales tax\?$/.exec(
          q,
        );
      return m ? { n1: +m[1]!, p1: +m[2]!, n2: +m[3]!, p2: +m[4]!, t: +m[5]! } : null;
    },
    step: (p, res) =>
      res.length === 0
        ? calc(`${p["n1"]} * ${p["p1"]} + ${p["n2"]} * ${p["p2"]}`)
        : res.length === 1
          ? calc(`${r(res[0]!)} * (1 + ${p["t"]} / 100)`)
          : null,
  },
  {
    kind: "oven",
    generate: (rng) => ({ f: pick(rng, [300, 325, 350, 375, 400, 425, 450]), d: num(rng, 5, 40) }),
    question: (p) =>
      `An oven is set to ${p["f"]} degrees Fahrenheit and then turned up by ${p["d"]} degrees Celsius. What is the new setting in degrees Celsius?`,
    parse: (q) => {
      const m =
        /^An oven is set to ([\d.]+) degrees Fahrenheit and then turned up by ([\d.]+) degrees Celsius\. What is the new setting in degrees Celsius\?$/.exec(
          q,
        );
      return m ? { f: +m[1]!, d: +m[2]! } : null;
    },
    step: (p, res) =>
      res.length === 0
        ? conv(Number(p["f"]), "F", "C")
        : res.length === 1
          ? calc(`${r(res[0]!)} + ${p["d"]}`)
          : null,
  },
  {
    kind: "field",
    generate: (rng) => {
      const [u, to] = pick(rng, [
        ["m", "ft"],
        ["ft", "m"],
        ["yd", "m"],
        ["km", "mi"],
      ] as const);
      return { w: num(rng, 3, 120, 1), l: num(rng, 3, 120, 1), u, to };
    },
    question: (p) =>
      `A rectangular field measures ${p["w"]} ${name(p["u"]!)} by ${p["l"]} ${name(p["u"]!)}. What is its area in square ${name(p["to"]!)}?`,
    parse: (q) => {
      const m =
        /^A rectangular field measures ([\d.]+) ([a-z]+) by ([\d.]+) ([a-z]+)\. What is its area in square ([a-z]+)\?$/.exec(
          q,
        );
      const u = m && NAME_TO_UNIT[m[2]!];
      const to = m && NAME_TO_UNIT[m[5]!];
      return m && u && to && m[2] === m[4] ? { w: +m[1]!, l: +m[3]!, u, to } : null;
    },
    step: (p, res) =>
      res.length === 0
        ? conv(Number(p["w"]), p["u"]!, p["to"]!)
        : res.length === 1
          ? conv(Number(p["l"]), p["u"]!, p["to"]!)
          : res.length === 2
            ? calc(`${r(res[0]!)} * ${r(res[1]!)}`)
            : null,
  },
  {
    kind: "arithmetic",
    generate: (rng) => ({
      a: num(rng, 1, 99),
      b: num(rng, 1, 99, 1),
      c: num(rng, 2, 19),
      d: num(rng, 10, 999),
      e: num(rng, 2, 16),
    }),
    question: (p) => `What is (${p["a"]} + ${p["b"]}) * ${p["c"]} - ${p["d"]} / ${p["e"]}?`,
    parse: (q) => {
      const m = /^What is \(([\d.]+) \+ ([\d.]+)\) \* ([\d.]+) - ([\d.]+) \/ ([\d.]+)\?$/.exec(q);
      return m ? { a: +m[1]!, b: +m[2]!, c: +m[3]!, d: +m[4]!, e: +m[5]! } : null;
    },
    step: (p, res) =>
      res.length === 0 ? calc(`(${p["a"]} + ${p["b"]}) * ${p["c"]} - ${p["d"]} / ${p["e"]}`) : null,
  },
];

/** Runs a call with the real tool implementations (as the harness would; both are synchronous). */
export function runPlanned(call: PlannedCall): number {
  const tool = call.name === "calculate" ? calculateTool : convertTool;
  const args = tool.argsSchema!.parse(call.arguments);
  return Number(tool.execute(args, undefined as never));
}

/** The template's whole plan, run with the real tools: its calls and the answer (the last result). */
export function planFor(t: Template, p: Params): { calls: PlannedCall[]; answer: number } {
  const results: number[] = [];
  const calls: PlannedCall[] = [];
  for (let call = t.step(p, results); call; call = t.step(p, results)) {
    calls.push(call);
    results.push(runPlanned(call));
  }
  return { calls, answer: results.at(-1)! };
}

/** The answer: the last result of the template's plan, and how many calls it took. */
export async function solve(t: Template, p: Params): Promise<{ answer: number; calls: number }> {
  const { calls, answer } = planFor(t, p);
  return { answer, calls: calls.length };
}

export function parseQuestion(question: string): { template: Template; params: Params } | null {
  for (const template of TEMPLATES) {
    const params = template.parse(question.trim());
    if (params) return { template, params };
  }
  return null;
}

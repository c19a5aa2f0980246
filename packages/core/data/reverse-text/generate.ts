/**
 * Builds data/reverse-text/{train,test}.jsonl reproducibly from the self-written pools in
 * corpus.ts. Run: `node --import tsx packages/core/data/reverse-text/generate.ts` (prints length statistics).
 * Same seed ⇒ byte-identical files (test/tasksets/reverse-text-data.test.ts checks this).
 */
import { writeFileSync } from "node:fs";
import { mulberry32 } from "../../src/random.ts";
import {
  ACCENTED,
  COMBINING,
  EMOJI,
  EMOJI_SENTENCES,
  EN,
  EN_SENTENCES,
  OTHER_SCRIPTS,
  RTL,
  TECHNICAL,
} from "./corpus.ts";

export const SEED = 0x5eed2026;
export const COUNTS = { train: 2400, test: 300 } as const;
const MAX_LEN = 480;

type Rng = () => number;
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;
const cpLen = (s: string) => Array.from(s).length;

function englishSentence(rng: Rng): string {
  if (rng() < 0.4) return pick(rng, EN_SENTENCES);
  const subject = pick(rng, EN.subjects);
  const parts = [subject[0]!.toUpperCase() + subject.slice(1), pick(rng, EN.verbs), pick(rng, EN.objects)];
  if (rng() < 0.7) parts.push(pick(rng, EN.places));
  if (rng() < 0.5) parts.push(pick(rng, EN.times));
  return `${parts.join(" ")}${pick(rng, [".", ".", ".", "!", "?", "…"])}`;
}

/** English with a sprinkle of other scripts, as real chat text tends to be. */
function sprinkled(rng: Rng): string {
  const words = englishSentence(rng).split(" ");
  const extra = pick(rng, [
    () => pick(rng, EMOJI),
    () => pick(rng, ["café", "über", "straße", "naïve", "jalapeño", "smörgås", "crème"]),
    () => pick(rng, ["東京", "漢字", "서울", "Ωμέγα", "Москва", "שלום", "مرحبا"]),
  ])();
  words.splice(Math.floor(rng() * (words.length + 1)), 0, extra);
  return words.join(" ");
}

/** Each flavour yields one segment; a prompt is segments joined until it reaches its length. */
const FLAVOURS: { weight: number; segment: (rng: Rng) => string }[] = [
  { weight: 35, segment: englishSentence },
  { weight: 20, segment: (rng) => (rng() < 0.5 ? sprinkled(rng) : englishSentence(rng)) },
  { weight: 10, segment: (rng) => pick(rng, ACCENTED) },
  { weight: 10, segment: (rng) => pick(rng, OTHER_SCRIPTS) },
  {
    weight: 7,
    segment: (rng) => (rng() < 0.7 ? pick(rng, RTL) : `${pick(rng, RTL)} (${englishSentence(rng)})`),
  },
  {
    weight: 8,
    segment: (rng) =>
      rng() < 0.6
        ? pick(rng, EMOJI_SENTENCES)
        : Array.from({ length: 1 + Math.floor(rng() * 6) }, () => pick(rng, EMOJI)).join(""),
  },
  { weight: 7, segment: (rng) => pick(rng, TECHNICAL) },
  { weight: 3, segment: (rng) => pick(rng, COMBINING) },
];

function pickFlavour(rng: Rng): (rng: Rng) => string {
  const total = FLAVOURS.reduce((s, f) => s + f.weight, 0);
  let x = rng() * total;
  for (const f of FLAVOURS) {
    x -= f.weight;
    if (x < 0) return f.segment;
  }
  return FLAVOURS[0]!.segment;
}

/** Target length in code points: mostly sentences, some fragments, a tail up to ~MAX_LEN. */
function targetLength(rng: Rng): number {
  const u = rng();
  if (u < 0.15) return 3 + Math.floor(rng() * 37); // fragments
  if (u < 0.6) return 40 + Math.floor(rng() * 110);
  if (u < 0.9) return 150 + Math.floor(rng() * 150);
  return 300 + Math.floor(rng() * (MAX_LEN - 300));
}

/** Cut to at most n code points, preferring a word boundary. */
function cut(text: string, n: number): string {
  const cps = Array.from(text);
  if (cps.length <= n) return text;
  const head = cps.slice(0, n).join("");
  const space = head.lastIndexOf(" ");
  return (space > n / 2 ? head.slice(0, space) : head).trim();
}

function makePrompt(rng: Rng): string {
  const target = targetLength(rng);
  const flavour = pickFlavour(rng);
  const segments: string[] = [];
  let len = 0;
  while (len < target) {
    // One prompt in five mixes flavours across its sentences.
    const seg = rng() < 0.2 ? pickFlavour(rng)(rng) : flavour(rng);
    segments.push(seg);
    len += cpLen(seg) + 1;
  }
  const joined = segments.join(" ");
  return target < 40 ? cut(joined, target) : cut(joined, MAX_LEN);
}

export function generate(seed = SEED): { train: string[]; test: string[] } {
  const rng = mulberry32(seed);
  const seen = new Set<string>();
  const take = (n: number) => {
    const out: string[] = [];
    while (out.length < n) {
      const p = makePrompt(rng);
      if (p.length === 0 || seen.has(p)) continue;
      seen.add(p);
      out.push(p);
    }
    return out;
  };
  // Test first, so growing the train split later never changes the held-out prompts.
  const test = take(COUNTS.test);
  const train = take(COUNTS.train);
  return { train, test };
}

export function toJsonl(prompts: readonly string[]): string {
  return prompts.map((prompt) => JSON.stringify({ prompt })).join("\n") + "\n";
}

function stats(name: string, prompts: readonly string[]): string {
  const lens = prompts.map(cpLen).sort((a, b) => a - b);
  const q = (p: number) => lens[Math.min(lens.length - 1, Math.floor(p * lens.length))];
  const nonAscii = prompts.filter((p) => /[^\x00-\x7f]/.test(p)).length;
  const astral = prompts.filter((p) => /[\u{10000}-\u{10ffff}]/u.test(p)).length;
  const zwj = prompts.filter((p) => p.includes("\u200d")).length;
  const rtl = prompts.filter((p) => /[\u0590-\u08ff]/.test(p)).length;
  const cjk = prompts.filter((p) => /[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]/.test(p)).length;
  return `${name}: n=${lens.length} len(cp) min=${lens[0]} p10=${q(0.1)} p50=${q(0.5)} p90=${q(0.9)} max=${lens.at(-1)} | non-ASCII=${nonAscii} astral=${astral} ZWJ=${zwj} RTL=${rtl} CJK=${cjk}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { train, test } = generate();
  const dir = new URL(".", import.meta.url);
  writeFileSync(new URL("train.jsonl", dir), toJsonl(train));
  writeFileSync(new URL("test.jsonl", dir), toJsonl(test));
  console.log(stats("train", train));
  console.log(stats("test", test));
}

/**
 * Figure 2 — renderer_vs_native: envroll's renderer (render + parse, pure TypeScript BPE)
 * against the native HF `tokenizers` binding (Rust, optional dependency) encoding the same
 * template text, as tokens/s on one fixed corpus, warm caches on both sides, measured
 * alternately in one process so the ratio compares neighbours in time.
 *
 * The native side does strictly less work (encode only: no template, no attribution, no
 * parse), so the ratio is a conservative view of the renderer's cost.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRenderer } from "../packages/core/src/renderers/index.ts";
import { ROOT } from "./lib/child.ts";
import { type Conversation, corpus } from "./lib/corpus.ts";
import { type BenchOptions, type Figure, median, note } from "./lib/report.ts";

interface NativeTokenizer {
  encode(
    text: string,
    pair?: null,
    options?: { addSpecialTokens?: boolean },
  ): Promise<{ getIds(): number[] }>;
}

/** The native binding, or null when the optional dependency is not installed for this platform. */
async function loadNative(path: string): Promise<NativeTokenizer | null> {
  try {
    const mod = (await import("tokenizers")) as unknown as {
      Tokenizer: { fromFile(file: string): NativeTokenizer };
    };
    return mod.Tokenizer.fromFile(path);
  } catch (e) {
    note(`native tokenizers unavailable (${e instanceof Error ? e.message : String(e)})`);
    return null;
  }
}

interface Prepared extends Conversation {
  text: string;
  tokenIds: number[];
}

/**
 * The same texts through the Python binding (synchronous Rust encode, timed inside Python), as a
 * second native reference without the Node binding's per-call promise and thread-pool hop.
 * Runs in the project's .venv (made by scripts/py-env.mjs, which installs `tokenizers`) when it
 * exists, else python3 from PATH; NaN when neither has the `tokenizers` package.
 */
function python(): string {
  const venv = join(ROOT, ".venv/bin/python");
  return existsSync(venv) ? venv : "python3";
}

async function pythonRates(tokenizerJson: string, passes: string[][]): Promise<number[]> {
  const dir = mkdtempSync(join(tmpdir(), "envroll-bench-"));
  try {
    const file = join(dir, "texts.json");
    writeFileSync(file, JSON.stringify(passes));
    const script = join(ROOT, "bench/lib/native_encode.py");
    const out = await new Promise<string>((resolve, reject) =>
      execFile(python(), [script, tokenizerJson, file], (err, stdout) =>
        err ? reject(err) : resolve(stdout),
      ),
    );
    return (JSON.parse(out) as { tokens_per_s: number[] }).tokens_per_s;
  } catch (e) {
    note(`python tokenizers unavailable (${e instanceof Error ? e.message.split("\n")[0] : String(e)})`);
    return [Number.NaN];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function renderer(o: BenchOptions): Promise<Figure[]> {
  const { qwen3TokenizerDir } = await import("../packages/core/src/tokenizer/index.ts");
  const r = createRenderer("qwen3");
  const size = o.quick ? 90 : 200;
  const passes = o.quick ? 3 : 5;
  // What each side works on: the renderer gets messages; the native tokenizer gets the exact
  // text the template produced (decoded from the renderer's own ids, special tokens kept).
  // Every pass gets a corpus of its own (same vocabulary, new seed): word-level BPE caches help
  // both sides as in a real run, but neither can replay text it has seen before. The renderer
  // pass runs first on each corpus, since the text for the native side comes from rendering it
  // (which would warm the renderer's piece cache).
  const native = await loadNative(`${qwen3TokenizerDir()}/tokenizer.json`);
  let seed = 1000;
  const nextCorpus = (): Conversation[] => corpus(size, ++seed);

  const renderPass = (convs: Conversation[]): { rate: number; prepared: Prepared[] } => {
    let tokens = 0;
    const out: Prepared[] = [];
    const t0 = performance.now();
    for (const c of convs) {
      const rendered = r.render(c.messages, { tools: c.tools });
      const lastIdx = c.messages.length - 1;
      const completion = rendered.tokenIds.filter(
        (_, i) => rendered.messageIndices[i] === lastIdx && rendered.sampledMask[i],
      );
      r.parse(completion, { tools: c.tools });
      tokens += rendered.tokenIds.length;
      out.push({ ...c, text: "", tokenIds: rendered.tokenIds });
    }
    const rate = tokens / ((performance.now() - t0) / 1000);
    for (const p of out) p.text = r.decode(p.tokenIds);
    return { rate, prepared: out };
  };
  let mismatched = 0;
  const nativePass = async (prepared: Prepared[]): Promise<number> => {
    let tokens = 0;
    const t0 = performance.now();
    for (const p of prepared) {
      const ids = (await native!.encode(p.text, null, { addSpecialTokens: false })).getIds();
      tokens += ids.length;
      if (ids.length !== p.tokenIds.length) mismatched++;
    }
    return tokens / ((performance.now() - t0) / 1000);
  };

  // Warm-up pass (JIT, the shared vocabulary in both BPE caches), not recorded.
  {
    const w = renderPass(nextCorpus());
    if (native) await nativePass(w.prepared);
  }
  const ours: number[] = [];
  const theirs: number[] = [];
  const ratios: number[] = [];
  let totalTokens = 0;
  for (let rep = 0; rep < o.reps; rep++) {
    // Several passes per repetition, alternating sides: a pass is short enough that one
    // preemption on this shared machine would otherwise decide the figure.
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < passes; i++) {
      const pass = renderPass(nextCorpus());
      totalTokens = pass.prepared.reduce((s, p) => s + p.tokenIds.length, 0);
      a.push(pass.rate);
      if (native) b.push(await nativePass(pass.prepared));
    }
    ours.push(median(a));
    theirs.push(native ? median(b) : Number.NaN);
    ratios.push(ours.at(-1)! / theirs.at(-1)!);
  }
  const ratio = median(ratios);
  const python = await pythonRates(
    `${qwen3TokenizerDir()}/tokenizer.json`,
    Array.from({ length: passes + 1 }, () => renderPass(nextCorpus()).prepared.map((p) => p.text)),
  );
  const pythonRate = median(python);
  return [
    {
      name: "renderer_vs_native",
      value: ratio,
      unit: "ratio",
      target: ">= 0.5",
      met: ratio >= 0.5,
      reps: ratios,
      renderer_tokens_per_s: median(ours),
      native_tokens_per_s: median(theirs),
      corpus_conversations: size,
      corpus_tokens_per_pass: totalTokens,
      passes_per_rep: passes,
      native_token_count_mismatches: mismatched,
      native: native ? "tokenizers@0.23.2 (Node binding), sequential awaited encode" : "unavailable",
      python_tokenizers_tokens_per_s: pythonRate,
      renderer_vs_python_tokenizers: median(ours) / pythonRate,
    },
  ];
}

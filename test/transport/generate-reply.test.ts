/**
 * The `/generate` reply read from its bytes must be exactly what JSON.parse of the body gives:
 * every logprob the same double (the trainer's importance ratios read them), every id the same,
 * and any shape the byte reader does not take parsed whole instead of misread.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { readGenerateReply } from "../../packages/core/src/transport/generate-reply.ts";
import { parseGenerateBody } from "../../packages/core/src/transport/response.ts";

/** A seeded stream of doubles of every magnitude a logprob list may hold. */
function* doubles(count: number): Generator<number> {
  let s = 0x9e3779b9;
  const next = () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) | 0;
    return (s >>> 0) / 2 ** 32;
  };
  for (let i = 0; i < count; i++) {
    const kind = i % 6;
    const u = next() + next() / 2 ** 32;
    if (kind === 0)
      yield -u * 20; // ordinary logprobs
    else if (kind === 1)
      yield Math.log(u); // down to about -22
    else if (kind === 2)
      yield -u * 10 ** -(1 + Math.floor(next() * 30)); // tiny: exponents
    else if (kind === 3)
      yield -Math.fround(u * 5); // float32 values, as SGLang's tensors hold
    else if (kind === 4)
      yield -Math.round(u * 1000) / 1000; // short decimals
    else yield [-0, 0, -1, -1e-7, -123456.789, -(2 ** 53) / 1e10][Math.floor(next() * 6)]!;
  }
}

function reply(tuples: string, extra = ""): Buffer {
  const n = tuples === "" ? 0 : tuples.split("],[").length;
  return Buffer.from(
    `{"text":"x \\"output_token_logprobs\\":[[1,2,null]] é","output_ids":[1],"meta_info":{"id":"r","finish_reason":{"type":"stop"},${extra}"completion_tokens":${n},"output_token_logprobs":[${tuples}],"e2e_latency":0.1}}`,
  );
}

test("logprobs and ids read from the bytes equal JSON.parse's, bit for bit", () => {
  const values = [...doubles(60_000)];
  for (let at = 0; at < values.length; at += 600) {
    const chunk = values.slice(at, at + 600);
    const tuples = chunk.map((v, i) => `[${JSON.stringify(v)},${(i * 7919) % 151_936},null]`).join(",");
    const bytes = reply(tuples);
    const read = readGenerateReply(bytes);
    assert.ok(read.ids !== null && read.logprobs !== null, "SGLang's compact shape is read from the bytes");
    const expected = parseGenerateBody(JSON.parse(bytes.toString()), "r");
    const got = parseGenerateBody(read.body, "r", { ids: read.ids, logprobs: read.logprobs });
    assert.deepEqual(got, expected);
    for (let i = 0; i < chunk.length; i++)
      assert.ok(Object.is(got.logprobs[i], expected.logprobs[i]), `logprob ${chunk[i]} read exactly`);
  }
});

test("other shapes of the list are parsed whole, with JSON.parse's result or error", () => {
  const shapes = [
    "[-0.5, 3, null]", // whitespace
    '[-0.5,3,"tok"]', // text in the tuples
    "[-0.5,3.0,null]", // an id JSON.parse reads as 3
    "[-0.5,3,null,1]", // a longer tuple
    "[null,3,null]", // a logprob SGLang could not serialise
    "[-0.5,3,null],[-01,4,null]", // not JSON: a leading zero
  ];
  for (const tuples of shapes) {
    const bytes = reply(tuples);
    let expected: unknown;
    try {
      expected = parseGenerateBody(JSON.parse(bytes.toString()), "r");
    } catch (e) {
      expected = e;
    }
    let got: unknown;
    try {
      const read = readGenerateReply(bytes);
      assert.equal(read.ids, null, `${tuples} is not read from the bytes`);
      got = parseGenerateBody(read.body, "r");
    } catch (e) {
      got = e;
    }
    if (expected instanceof Error) {
      assert.ok(got instanceof Error, `${tuples}: an error, as JSON.parse gives`);
      assert.equal(got.constructor, expected.constructor);
    } else assert.deepEqual(got, expected, tuples);
  }
  // The key twice (here a nested copy): the list cannot be told apart, so JSON.parse reads all.
  const twice = reply("[-0.5,3,null]", '"x":{"output_token_logprobs":[[1,2,null]]},');
  assert.equal(readGenerateReply(twice).ids, null);
  assert.deepEqual(readGenerateReply(reply("")).ids, [], "an empty list is read too");
});

/** Decimals of 16–18 significant digits, the shape most logprobs have, and ones a hair off a tie. */
function* longDecimals(count: number): Generator<string> {
  let s = 0x2545f491;
  const next = () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) | 0;
    return (s >>> 0) / 2 ** 32;
  };
  const bits = new Float64Array(1);
  const word = new BigUint64Array(bits.buffer);
  for (let i = 0; i < count; i++) {
    bits[0] = (next() + next() / 2 ** 32) * 2 ** (Math.floor(next() * 28) - 18);
    if (i % 3 === 0) {
      yield String(bits[0]); // a shortest round-trip decimal, as JSON writers give
      continue;
    }
    // The exact midpoint between this double and the next: (2m+1)·2^(e-1) = (2m+1)·5^k / 10^k.
    const w = word[0]!;
    const k = 1076 - Number(w >> 52n);
    const mantissa = (w & ((1n << 52n) - 1n)) | (1n << 52n);
    const all = ((2n * mantissa + 1n) * 5n ** BigInt(k)).toString().padStart(k + 1, "0");
    // Cut to 16–18 significant digits, then moved -2…+2 units of the last digit kept.
    const first = all.search(/[1-9]/);
    const kept = all.slice(0, first + 16 + (i % 3));
    const digits = (BigInt(kept) + BigInt((i % 5) - 2)).toString().padStart(kept.length, "0");
    const point = all.length - k;
    yield `${digits.slice(0, point)}.${digits.slice(point)}`;
  }
}

test("16-18 digit logprobs, near-ties among them, read as JSON.parse reads them", () => {
  const texts = [...longDecimals(30_000)];
  for (let at = 0; at < texts.length; at += 500) {
    const chunk = texts.slice(at, at + 500).map((t) => `-${t}`);
    const bytes = reply(chunk.map((t, i) => `[${t},${i},null]`).join(","));
    const read = readGenerateReply(bytes);
    assert.ok(read.logprobs !== null);
    for (let i = 0; i < chunk.length; i++)
      assert.ok(Object.is(read.logprobs[i], JSON.parse(chunk[i]!)), `${chunk[i]} read exactly`);
  }
});

test("the top-level output_ids list is left out of the parse only when it is compact integers, once", () => {
  const body = (ids: string, text = "x") =>
    Buffer.from(
      `{"text":${JSON.stringify(text)},"output_ids":${ids},"meta_info":{"id":"r","weight_version":"é","finish_reason":{"type":"stop"},"completion_tokens":2,"output_token_logprobs":[[-0.5,3,null],[-0.25,4,null]]}}`,
    );
  const parsed = (bytes: Buffer) => {
    const whole = JSON.parse(bytes.toString()) as { meta_info: { output_token_logprobs: unknown[] } };
    whole.meta_info.output_token_logprobs = [];
    return whole;
  };
  for (const [ids, skipped] of [
    ["[3,4]", true],
    ["[]", true],
    ["[3, 4]", false], // whitespace
    ["[3.0,4]", false], // a float JSON.parse reads as 3
    ["[-3,4]", false],
    ['["3",4]', false],
  ] as const) {
    const bytes = body(ids);
    const read = readGenerateReply(bytes);
    assert.deepEqual(read.ids, [3, 4], ids);
    const expected = parsed(bytes) as Record<string, unknown>;
    if (skipped) expected.output_ids = [];
    assert.deepEqual(read.body, expected, ids);
  }
  // The key's text inside a string (escaped) and nested under another key are not the list.
  const inText = body("[3,4]", 'say "output_ids":[9] é');
  assert.deepEqual((readGenerateReply(inText).body as { text: string }).text, 'say "output_ids":[9] é');
  const twice = Buffer.from(
    `{"output_ids":[3,4],"meta_info":{"output_ids":[1],"finish_reason":{"type":"stop"},"completion_tokens":2,"output_token_logprobs":[[-0.5,3,null],[-0.25,4,null]]}}`,
  );
  assert.deepEqual((readGenerateReply(twice).body as { output_ids: unknown }).output_ids, [3, 4]);
});

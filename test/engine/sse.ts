/** Reads an SGLang SSE response into its `data:` payloads (the last one is `[DONE]`). */
export async function readSse(res: Response): Promise<string[]> {
  const text = await res.text();
  const events = text.split("\n\n").filter(Boolean);
  for (const e of events)
    if (!e.startsWith("data: ")) throw new Error(`not an SSE data event: ${e.slice(0, 80)}`);
  return events.map((e) => e.slice("data: ".length));
}

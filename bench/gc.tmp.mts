import { bridge } from "./bridge.ts";
const figs = await bridge({ quick: true, reps: 1 } as any);
for (const f of figs) console.log(f.name, (f as any).value, (f as any).turn2_ms, (f as any).turn32_ms);

/**
 * The `convert` tool's unit table. Each unit maps to a dimension and a factor to the
 * dimension's base unit; temperature is affine and handled apart.
 */

type Dimension = "length" | "mass" | "volume" | "time" | "temperature";

const LINEAR: Record<string, { dim: Dimension; factor: number }> = {
  m: { dim: "length", factor: 1 },
  km: { dim: "length", factor: 1000 },
  cm: { dim: "length", factor: 0.01 },
  mm: { dim: "length", factor: 0.001 },
  mi: { dim: "length", factor: 1609.344 },
  yd: { dim: "length", factor: 0.9144 },
  ft: { dim: "length", factor: 0.3048 },
  in: { dim: "length", factor: 0.0254 },
  kg: { dim: "mass", factor: 1 },
  g: { dim: "mass", factor: 0.001 },
  lb: { dim: "mass", factor: 0.45359237 },
  oz: { dim: "mass", factor: 0.028349523125 },
  l: { dim: "volume", factor: 1 },
  ml: { dim: "volume", factor: 0.001 },
  gal: { dim: "volume", factor: 3.785411784 },
  cup: { dim: "volume", factor: 0.2365882365 },
  s: { dim: "time", factor: 1 },
  min: { dim: "time", factor: 60 },
  h: { dim: "time", factor: 3600 },
  day: { dim: "time", factor: 86400 },
};

const TEMPERATURE = ["C", "F", "K"] as const;

export const UNITS = Object.keys(LINEAR).concat(TEMPERATURE) as [string, ...string[]];

/** Human names used in questions → unit symbols. */
export const UNIT_NAMES: Record<string, string> = {
  m: "meters",
  km: "kilometers",
  cm: "centimeters",
  mm: "millimeters",
  mi: "miles",
  yd: "yards",
  ft: "feet",
  in: "inches",
  kg: "kilograms",
  g: "grams",
  lb: "pounds",
  oz: "ounces",
  l: "liters",
  ml: "milliliters",
  gal: "gallons",
  cup: "cups",
  s: "seconds",
  min: "minutes",
  h: "hours",
  day: "days",
  C: "degrees Celsius",
  F: "degrees Fahrenheit",
  K: "kelvin",
};

export class UnitError extends Error {}

function toKelvin(v: number, u: string): number {
  return u === "K" ? v : u === "C" ? v + 273.15 : ((v - 32) * 5) / 9 + 273.15;
}

function fromKelvin(k: number, u: string): number {
  return u === "K" ? k : u === "C" ? k - 273.15 : ((k - 273.15) * 9) / 5 + 32;
}

export function convert(value: number, from: string, to: string): number {
  const isTemp = (u: string) => (TEMPERATURE as readonly string[]).includes(u);
  if (isTemp(from) || isTemp(to)) {
    if (!isTemp(from) || !isTemp(to)) throw new UnitError(`cannot convert ${from} to ${to}`);
    return fromKelvin(toKelvin(value, from), to);
  }
  const a = LINEAR[from];
  const b = LINEAR[to];
  if (!a) throw new UnitError(`unknown unit ${JSON.stringify(from)}`);
  if (!b) throw new UnitError(`unknown unit ${JSON.stringify(to)}`);
  if (a.dim !== b.dim) throw new UnitError(`cannot convert ${a.dim} (${from}) to ${b.dim} (${to})`);
  return (value * a.factor) / b.factor;
}

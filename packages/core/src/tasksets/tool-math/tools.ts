/** tool-math's tools, defined with zod schemas (validated before execute; JSON schema for the model). */
import { z } from "zod";
import type { ToolDefinition } from "../../task.ts";
import type { TaskData } from "../../types.ts";
import { evaluate, formatNumber } from "./expression.ts";
import { convert, UNITS } from "./units.ts";

const CalculateArgs = z.object({
  expression: z.string().describe("Arithmetic with + - * / % ^ and parentheses, e.g. (2 + 3) * 4.5"),
});

const ConvertArgs = z.object({
  value: z.number().describe("The quantity to convert"),
  from_unit: z.enum(UNITS).describe("Unit of the value"),
  to_unit: z.enum(UNITS).describe("Unit to convert to"),
});

const schema = (s: z.ZodType) => z.toJSONSchema(s, { target: "draft-7" }) as Record<string, unknown>;

export const calculateTool: ToolDefinition<TaskData> = {
  name: "calculate",
  description: "Evaluate an arithmetic expression and return the result.",
  parameters: schema(CalculateArgs),
  argsSchema: CalculateArgs,
  execute: (args: z.infer<typeof CalculateArgs>) => formatNumber(evaluate(args.expression)),
};

export const convertTool: ToolDefinition<TaskData> = {
  name: "convert",
  description:
    "Convert a value between units of length (m km cm mm mi yd ft in), mass (kg g lb oz), volume (l ml gal cup), time (s min h day) or temperature (C F K).",
  parameters: schema(ConvertArgs),
  argsSchema: ConvertArgs,
  execute: (args: z.infer<typeof ConvertArgs>) =>
    formatNumber(convert(args.value, args.from_unit, args.to_unit)),
};

export const TOOLS = [calculateTool, convertTool];

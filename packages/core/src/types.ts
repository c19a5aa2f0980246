/**
 * The message, tool and task vocabulary shared by every layer (Verifiers V1 `types.py`).
 *
 * One source of truth: the zod schemas validate data at the wire (interception requests,
 * service requests, task files) and the TypeScript types are inferred from them, so the two
 * cannot drift apart.
 */
import { z } from "zod";

/** A tool call as envroll stores it: arguments stay the raw JSON string the model produced. */
export const ToolCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  arguments: z.string(),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

export const TextPartSchema = z.object({ type: z.literal("text"), text: z.string() });
export const ImagePartSchema = z.object({
  type: z.literal("image_url"),
  image_url: z.object({ url: z.string() }),
});
export const ContentSchema = z.union([z.string(), z.array(z.union([TextPartSchema, ImagePartSchema]))]);
export type Content = z.infer<typeof ContentSchema>;

export const SystemMessageSchema = z.object({ role: z.literal("system"), content: ContentSchema });
export const UserMessageSchema = z.object({ role: z.literal("user"), content: ContentSchema });
export const AssistantMessageSchema = z.object({
  role: z.literal("assistant"),
  content: ContentSchema.nullable().optional(),
  reasoning_content: z.string().nullable().optional(),
  tool_calls: z.array(ToolCallSchema).optional(),
});
export const ToolMessageSchema = z.object({
  role: z.literal("tool"),
  tool_call_id: z.string(),
  content: ContentSchema,
  name: z.string().optional(),
});
export const MessageSchema = z.discriminatedUnion("role", [
  SystemMessageSchema,
  UserMessageSchema,
  AssistantMessageSchema,
  ToolMessageSchema,
]);
export type SystemMessage = z.infer<typeof SystemMessageSchema>;
export type UserMessage = z.infer<typeof UserMessageSchema>;
export type AssistantMessage = z.infer<typeof AssistantMessageSchema>;
export type ToolMessage = z.infer<typeof ToolMessageSchema>;
export type Message = z.infer<typeof MessageSchema>;
export type Messages = Message[];

/** A tool the model may call: a JSON-schema function spec. */
export const ToolSchema = z.object({
  name: z.string(),
  description: z.string().default(""),
  parameters: z.record(z.string(), z.unknown()).default({ type: "object", properties: {} }),
  strict: z.boolean().optional(),
});
export type Tool = z.infer<typeof ToolSchema>;

/**
 * One row of a taskset. `prompt: null` means the user simulator opens the conversation.
 * Tasksets extend it with typed fields (`answer`, `expected`, …) through their own schema.
 */
export const TaskDataSchema = z
  .object({
    idx: z.number().int(),
    name: z.string().nullable().optional(),
    description: z.string().nullable().optional(),
    prompt: z
      .union([z.string(), z.array(MessageSchema)])
      .nullable()
      .optional(),
    system_prompt: z.string().nullable().optional(),
    timeout: z
      .object({
        setup: z.number().nullable().optional(),
        harness: z.number().nullable().optional(),
        finalize: z.number().nullable().optional(),
        scoring: z.number().nullable().optional(),
      })
      .optional(),
  })
  .loose();
export type TaskData = z.infer<typeof TaskDataSchema>;

export type FinishReason = "stop" | "length" | "tool_calls" | "abort" | null;

/** Plain text of a message's content (parts joined; images dropped). */
export function contentText(content: Content | null | undefined): string {
  if (content == null) return "";
  if (typeof content === "string") return content;
  return content.map((p) => (p.type === "text" ? p.text : "")).join("");
}

/**
 * The message, tool and task vocabulary shared by every layer (Verifiers V1 `types.py`).
 *
 * One source of truth: the zod schemas validate data at the wire (interception requests,
 * service requests, task files) and the TypeScript types are inferred from them, so the two
 * cannot drift apart.
 */
import { z } from "zod";
import { lazySchema, once } from "./lazy-schema.ts";

/**
 * The message schemas, built together on first use (lazy-schema.ts): they refer to each other,
 * and a start-up that parses no message builds none of them.
 */
const messages = once(() => {
  /** A tool call as envroll stores it: arguments stay the raw JSON string the model produced. */
  const ToolCall = z.object({
    id: z.string(),
    name: z.string(),
    arguments: z.string(),
  });
  const TextPart = z.object({ type: z.literal("text"), text: z.string() });
  const ImagePart = z.object({
    type: z.literal("image_url"),
    image_url: z.object({ url: z.string() }),
  });
  const Content = z.union([z.string(), z.array(z.union([TextPart, ImagePart]))]);
  const SystemMessage = z.object({ role: z.literal("system"), content: Content });
  const UserMessage = z.object({ role: z.literal("user"), content: Content });
  const AssistantMessage = z.object({
    role: z.literal("assistant"),
    content: Content.nullable().optional(),
    reasoning_content: z.string().nullable().optional(),
    tool_calls: z.array(ToolCall).optional(),
  });
  const ToolMessage = z.object({
    role: z.literal("tool"),
    tool_call_id: z.string(),
    content: Content,
    name: z.string().optional(),
  });
  const Message = z.discriminatedUnion("role", [SystemMessage, UserMessage, AssistantMessage, ToolMessage]);
  return {
    ToolCall,
    TextPart,
    ImagePart,
    Content,
    SystemMessage,
    UserMessage,
    AssistantMessage,
    ToolMessage,
    Message,
  };
});

export const ToolCallSchema = lazySchema(() => messages().ToolCall);
export type ToolCall = z.infer<typeof ToolCallSchema>;
export const TextPartSchema = lazySchema(() => messages().TextPart);
export const ImagePartSchema = lazySchema(() => messages().ImagePart);
export const ContentSchema = lazySchema(() => messages().Content);
export type Content = z.infer<typeof ContentSchema>;
export const SystemMessageSchema = lazySchema(() => messages().SystemMessage);
export const UserMessageSchema = lazySchema(() => messages().UserMessage);
export const AssistantMessageSchema = lazySchema(() => messages().AssistantMessage);
export const ToolMessageSchema = lazySchema(() => messages().ToolMessage);
export const MessageSchema = lazySchema(() => messages().Message);
export type SystemMessage = z.infer<typeof SystemMessageSchema>;
export type UserMessage = z.infer<typeof UserMessageSchema>;
export type AssistantMessage = z.infer<typeof AssistantMessageSchema>;
export type ToolMessage = z.infer<typeof ToolMessageSchema>;
export type Message = z.infer<typeof MessageSchema>;
export type Messages = Message[];

/** A tool the model may call: a JSON-schema function spec. */
export const ToolSchema = lazySchema(() =>
  z.object({
    name: z.string(),
    description: z.string().default(""),
    parameters: z.record(z.string(), z.unknown()).default({ type: "object", properties: {} }),
    strict: z.boolean().optional(),
  }),
);
export type Tool = z.infer<typeof ToolSchema>;

/**
 * One row of a taskset. `prompt: null` means the user simulator opens the conversation.
 * Tasksets extend it with typed fields (`answer`, `expected`, …) through their own schema.
 */
export const TaskDataSchema = lazySchema(() =>
  z
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
    .loose(),
);
export type TaskData = z.infer<typeof TaskDataSchema>;

export type FinishReason = "stop" | "length" | "tool_calls" | "abort" | null;

/** Plain text of a message's content (parts joined; images dropped). */
export function contentText(content: Content | null | undefined): string {
  if (content == null) return "";
  if (typeof content === "string") return content;
  return content.map((p) => (p.type === "text" ? p.text : "")).join("");
}

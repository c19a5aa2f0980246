/**
 * Which evaluator renders a chat template: the compiled one (`template/compile.ts`) where it
 * implements everything the template uses, else `@huggingface/jinja`'s interpreter. The
 * compiled evaluator is several times faster (no runtime-value wrapping) and gives the same
 * text; a render it cannot finish (a construct met only at run time that it does not
 * implement, or any error, e.g. `raise_exception`) is rendered again by the library, so the
 * library decides every error and every result the compiler is not sure of.
 * `reason` says why a template is not compiled at all, `lastFallback` why the last render fell
 * back (for debugging; neither changes a result).
 */
import type { Template } from "@huggingface/jinja";
import { type MarkedText, readMarks, renderMarked } from "./attribution.ts";
import { type CompiledTemplate, compileTemplate } from "./template/compile.ts";
import type { Node } from "./template/expressions.ts";

export class TemplateEvaluator {
  private readonly compiled: CompiledTemplate | null;
  /** Why the template is rendered by the library (null: compiled). */
  readonly reason: string | null;
  /** Why the last render that fell back to the library did (null: none has). */
  lastFallback: string | null = null;

  constructor(
    readonly template: Template,
    defined: ReadonlySet<string>,
  ) {
    let compiled: CompiledTemplate | null = null;
    let reason: string | null = null;
    try {
      compiled = compileTemplate(template.parsed as unknown as Node, defined);
    } catch (e) {
      reason = e instanceof Error ? e.message : String(e);
    }
    this.compiled = compiled;
    this.reason = reason;
  }

  /** The template's text for a context of plain values. */
  text(ctx: Record<string, unknown>): string {
    if (this.compiled) {
      try {
        return this.compiled.render(ctx, { messageIndex: null });
      } catch (e) {
        this.fellBack(e);
      }
    }
    return this.template.render(ctx);
  }

  /** The marked render (`attribution.ts`) of a context whose `messages` are the caller's. */
  marked(ctx: Record<string, unknown>, messageCount: number): MarkedText | null {
    if (this.compiled) {
      const messages = Array.isArray(ctx.messages) ? (ctx.messages as unknown[]) : [];
      const ids = new Map<unknown, number>(messages.map((m, i) => [m, i]));
      let raw: string | null = null;
      try {
        raw = this.compiled.render(ctx, {
          messageIndex: (v) => (v !== null && typeof v === "object" ? (ids.get(v) ?? -1) : -1),
        });
      } catch (e) {
        this.fellBack(e);
      }
      if (raw !== null) return readMarks(raw, messageCount);
    }
    return renderMarked(this.template, ctx, messageCount);
  }

  private fellBack(e: unknown): void {
    this.lastFallback = e instanceof Error ? e.message : String(e);
  }
}

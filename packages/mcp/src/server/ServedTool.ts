import type { ToolAnnotations, ToolDescriptor, ToolResult } from "@meshflow/core";
import { z } from "zod";
import { refusal } from "../refusal.js";
import type { CallContext } from "../types.js";
import type { ClientMode, DetectedClient } from "./clientMode.js";
import { exposedToolName } from "./exposedToolName.js";
import { type DescriptionTiers, proxiedDescriptions } from "./toolDescriptions.js";

/** What enabling a toolset did in one session. */
export interface EnableOutcome {
  toolset: string;
  /** `enabled`: its tools were added and `notifications/tools/list_changed` sent. */
  status: "enabled" | "already_loaded" | "static_client" | "unavailable";
  /** Tools the session lists now. */
  toolCount: number;
  /** Tools this toolset added. */
  added: string[];
  /** For people and models: what happened and what to do next. */
  message: string;
}

/** What a local tool may ask of the session it is called in. */
export interface SessionView {
  readonly client: DetectedClient;
  readonly mode: ClientMode;
  isLoaded(toolset: string): boolean;
  loadedToolsets(): string[];
  /** Tools the session lists now. */
  toolCount(): number;
  enableToolset(name: string): Promise<EnableOutcome>;
}

/** The implementation of a tool served by meshflow itself. Arguments have passed the input schema. */
export type LocalToolHandler = (
  args: Record<string, unknown>,
  ctx: CallContext,
  session: SessionView,
) => Promise<ToolResult>;

/**
 * A tool as the server offers it: its served name (≤ 64 characters), toolset, descriptor (the
 * name, schema and annotations the call chain works with), the two description tiers, and for
 * tools of meshflow itself the handler (proxied tools are called on their server through the pool).
 */
export interface ServedTool {
  name: string;
  toolset: string;
  descriptor: ToolDescriptor;
  descriptions: DescriptionTiers;
  handler?: LocalToolHandler;
}

/** A tool of a downstream server served as `<server>__<tool>` (shortened with a hash past 64 characters). */
export function proxiedTool(descriptor: ToolDescriptor): ServedTool {
  return {
    name: exposedToolName(descriptor.qualifiedName),
    toolset: descriptor.server,
    descriptor,
    descriptions: proxiedDescriptions(descriptor),
  };
}

/** The three hints every local tool declares. */
export type RequiredHints = ToolAnnotations & {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
};

/** How a local tool is defined: zod input, both description tiers, all three hints, and its work. */
export interface LocalToolDefinition<Shape extends z.ZodRawShape> {
  name: string;
  toolset: string;
  title: string;
  /** 200–400 characters: what it does, when to use it, when not to. */
  rich: string;
  /** 50–100 characters: verb, noun, one discriminator. */
  minimal: string;
  input: Shape;
  annotations: RequiredHints;
  run(args: z.infer<z.ZodObject<Shape>>, ctx: CallContext, session: SessionView): Promise<ToolResult>;
}

/** The text content of a result: JSON for objects, so models and people read the same facts. */
export function jsonResult(value: Record<string, unknown>, text?: string): ToolResult {
  return { content: [{ type: "text", text: text ?? JSON.stringify(value, null, 2) }], structuredContent: value };
}

/**
 * A tool of meshflow itself. Its JSON Schema comes from the zod shape (so the chain's validator
 * checks it like any other tool); the handler parses again to get typed values and defaults.
 */
export function defineLocalTool<Shape extends z.ZodRawShape>(definition: LocalToolDefinition<Shape>): ServedTool {
  const schema = z.strictObject(definition.input);
  const { $schema: _dialect, ...inputSchema } = z.toJSONSchema(schema, { io: "input", target: "draft-7" }) as Record<
    string,
    unknown
  >;
  const annotations: ToolAnnotations = { title: definition.title, ...definition.annotations };
  return {
    name: definition.name,
    toolset: definition.toolset,
    descriptor: {
      qualifiedName: definition.name,
      server: "meshflow",
      name: definition.name,
      title: definition.title,
      description: definition.rich,
      inputSchema,
      annotations,
    },
    descriptions: { rich: definition.rich, minimal: definition.minimal },
    handler: (args, ctx, session) => {
      const parsed = schema.safeParse(args);
      if (!parsed.success) {
        const problems = parsed.error.issues.map(
          (i) => `$${i.path.map((p) => `.${String(p)}`).join("")}: ${i.message}`,
        );
        return Promise.resolve(
          refusal("invalid_arguments", `invalid arguments for "${definition.name}": ${problems.join("; ")}`, {
            problems,
          }),
        );
      }
      return definition.run(parsed.data, ctx, session);
    },
  };
}

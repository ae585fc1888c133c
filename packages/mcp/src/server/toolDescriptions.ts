import type { ToolAnnotations, ToolDescriptor } from "@meshflow/core";

/** Which description a client gets: rich for search-based clients, minimal for eager-loading ones. */
export type DescriptionTier = "rich" | "minimal";

/** The longest minimal description: verb, noun and one discriminator. */
export const MINIMAL_DESCRIPTION_MAX = 100;

/** The two tiers of one tool's description. */
export interface DescriptionTiers {
  rich: string;
  minimal: string;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * The first sentence of `text` (or its first line), at most {@link MINIMAL_DESCRIPTION_MAX}
 * characters, cut at a word boundary with an ellipsis; `fallback` when `text` is empty.
 */
export function minimalDescription(text: string, fallback: string): string {
  const firstLine = text.split(/\n\s*\n|\n[-*#]/)[0] ?? "";
  const sentence = /^(.+?[.!?])(\s|$)/s.exec(collapse(firstLine))?.[1] ?? collapse(firstLine);
  const chosen = sentence || fallback;
  if (chosen.length <= MINIMAL_DESCRIPTION_MAX) return chosen;
  const cut = chosen.slice(0, MINIMAL_DESCRIPTION_MAX - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > MINIMAL_DESCRIPTION_MAX / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:]+$/, "")}…`;
}

/** One sentence naming what the hints promise (read-only, destructive, idempotent, closed world). */
export function hintsSentence(annotations: ToolAnnotations): string {
  const facts: string[] = [];
  if (annotations.readOnlyHint === true) facts.push("read-only");
  else if (annotations.destructiveHint === true) facts.push("destructive: may overwrite or delete data");
  else if (annotations.readOnlyHint === false) facts.push("changes state, not destructively");
  if (annotations.idempotentHint === true) facts.push("idempotent (repeating it changes nothing more)");
  if (annotations.openWorldHint === false) facts.push("touches only its own server's data");
  else if (annotations.openWorldHint === true) facts.push("reaches outside systems");
  if (!facts.length) return "";
  const text = facts.join("; ");
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

/**
 * The tiers of a proxied tool's description. Rich: the server's full description, then where the
 * tool comes from and what its hints say (words a tool search can match). Minimal: its first sentence.
 */
export function proxiedDescriptions(descriptor: ToolDescriptor): DescriptionTiers {
  const own = descriptor.description.trim();
  const origin = `Tool "${descriptor.name}" of MCP server "${descriptor.server}" (toolset ${descriptor.server}).`;
  const hints = hintsSentence(descriptor.annotations);
  return {
    rich: [own, [origin, hints].filter(Boolean).join(" ")].filter(Boolean).join("\n\n"),
    minimal: minimalDescription(own, `${descriptor.title ?? descriptor.name} (${descriptor.server})`),
  };
}

import { createHash } from "node:crypto";

/** The longest tool name many MCP clients and model APIs accept (`^[a-zA-Z0-9_-]{1,64}$`). */
export const MAX_TOOL_NAME_LENGTH = 64;

/** Characters kept as they are in an exposed name; anything else becomes `_`. */
const UNSAFE = /[^A-Za-z0-9_-]/g;
/** Hex digits of the SHA-256 of the full name appended to a shortened or rewritten name. */
const HASH_LENGTH = 8;

/**
 * The name a tool is served under: the qualified name `<server>__<tool>` itself when it is at most
 * 64 characters of `[A-Za-z0-9_-]`; otherwise the name with other characters replaced by `_`, cut
 * so that `_` and the first 8 hex digits of the SHA-256 of the full qualified name fit within 64.
 * The same input always gives the same name, so clients can keep configs and allow lists.
 *
 * @example
 * exposedToolName("everything__echo"); // "everything__echo"
 * exposedToolName(`files__${"x".repeat(80)}`); // "files__xxx…xxx_1a2b3c4d" (64 characters)
 */
export function exposedToolName(qualifiedName: string): string {
  const safe = qualifiedName.replace(UNSAFE, "_");
  if (safe === qualifiedName && safe.length <= MAX_TOOL_NAME_LENGTH && safe.length > 0) return safe;
  const hash = createHash("sha256").update(qualifiedName).digest("hex").slice(0, HASH_LENGTH);
  return `${safe.slice(0, MAX_TOOL_NAME_LENGTH - HASH_LENGTH - 1)}_${hash}`;
}

import { z } from "zod";
import { MeshflowError } from "../errors/MeshflowError.js";

/**
 * The built-in tools every agent harness meshflow exports to has (Claude Code, OpenCode, GitHub Copilot),
 * by their harness-neutral names. Each harness writer maps them to its own names (`bash` is Claude Code's
 * `Bash`, OpenCode's `bash`, Copilot's `execute`).
 */
export const UNIVERSAL_TOOL_KINDS = [
  "read",
  "write",
  "edit",
  "bash",
  "grep",
  "glob",
  "webfetch",
  "websearch",
  "todo",
  "task",
] as const;

/** A harness-neutral built-in tool name. */
export type UniversalToolKind = (typeof UNIVERSAL_TOOL_KINDS)[number];

/**
 * A tool a specialist asks the harness for, besides the MCP tools of its repertoire: one of the universal
 * tools, or `custom` — a harness-specific tool name written out verbatim (`NotebookEdit`, `lsp`).
 */
export type UniversalTool = { readonly kind: UniversalToolKind } | { readonly kind: "custom"; readonly name: string };

const KINDS: ReadonlySet<string> = new Set(UNIVERSAL_TOOL_KINDS);
// The universal tools that cannot change files, run commands or start other agents.
const READ_ONLY: ReadonlySet<UniversalToolKind> = new Set(["read", "grep", "glob", "webfetch", "websearch", "todo"]);
const CUSTOM_NAME = /^[A-Za-z][\w.\-/]*$/;

function isKind(name: string): name is UniversalToolKind {
  return KINDS.has(name);
}

function customTool(name: string): UniversalTool {
  if (isKind(name))
    throw new MeshflowError(
      "usage",
      `custom tool "${name}" is the universal tool of that name; use UniversalTool.${name} instead`,
    );
  // `__` separates server and tool in meshflow's qualified names; a custom name with it would read as an MCP tool.
  if (!CUSTOM_NAME.test(name) || name.includes("__"))
    throw new MeshflowError(
      "usage",
      `custom tool "${name}" is not a tool name: expected a letter, then letters, digits, "_", "-", "." or "/", without "__"`,
    );
  return Object.freeze({ kind: "custom" as const, name });
}

const singletons = Object.fromEntries(UNIVERSAL_TOOL_KINDS.map((kind) => [kind, Object.freeze({ kind })])) as {
  readonly [K in UniversalToolKind]: { readonly kind: K };
};

/**
 * The universal tools as values (`UniversalTool.bash`), `custom(name)`, and the string forms used in data
 * files and tool maps.
 *
 * @example
 * defineSpecialist({ name: "development-agent", harnessTools: [UniversalTool.read, UniversalTool.edit, UniversalTool.bash], … });
 * UniversalTool.toString(UniversalTool.custom("NotebookEdit")); // "NotebookEdit"
 * UniversalTool.fromString("webfetch");                          // UniversalTool.webfetch
 */
export const UniversalTool = Object.freeze({
  ...singletons,
  /** A harness-specific tool, written out as given. Throws `usage` for a universal name or a malformed one. */
  custom: customTool,
  /** The tool's string form: the universal kind, or the custom name. */
  toString(tool: UniversalTool): string {
    return tool.kind === "custom" ? tool.name : tool.kind;
  },
  /** Parses a string form: a universal kind, else a custom tool of that name. */
  fromString(name: string): UniversalTool {
    return isKind(name) ? singletons[name] : customTool(name);
  },
  /** True for a universal tool that cannot write, run commands or start agents; false for custom tools (unknown). */
  isReadOnly(tool: UniversalTool): boolean {
    return tool.kind !== "custom" && READ_ONLY.has(tool.kind);
  },
  /** True when `name` is one of {@link UNIVERSAL_TOOL_KINDS}. */
  isKind,
});

/** Validates a universal tool value, as `defineSpecialist` receives it. */
export const UniversalToolSchema = z.union([
  z.strictObject({ kind: z.enum(UNIVERSAL_TOOL_KINDS) }),
  z.strictObject({
    kind: z.literal("custom"),
    name: z
      .string()
      .regex(CUSTOM_NAME, "a custom tool name starts with a letter and has no spaces")
      .refine(
        (name) => !isKind(name) && !name.includes("__"),
        "a custom tool name is not a universal one and has no __",
      ),
  }),
]);

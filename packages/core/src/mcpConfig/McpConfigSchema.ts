import { z } from "zod";

/** A server name: letters, digits, `-`, `_`, `.`; never `__`, which separates server and tool. */
export const ServerNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, "a server name uses letters, digits, '-', '_' and '.'")
  .refine((name) => !name.includes("__"), {
    message: 'a server name may not contain "__" (it separates server and tool in qualified names)',
  });

/** A stdio server entry as written in `.mcp.json`. */
export const StdioServerEntrySchema = z.looseObject({
  type: z.literal("stdio").optional(),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
  cwd: z.string().min(1).optional(),
});

/** A Streamable HTTP server entry as written in `.mcp.json`. */
export const HttpServerEntrySchema = z.looseObject({
  type: z.enum(["http", "streamable-http"]).optional(),
  url: z.string().min(1),
  headers: z.record(z.string(), z.string()).default({}),
});

/** The top level of an MCP config file (Claude Code's `.mcp.json` format). */
export const McpConfigFileSchema = z.looseObject({
  mcpServers: z.record(z.string(), z.unknown()),
});

/** A stdio server, expanded and ready to spawn. `cwd` is absolute. */
export interface StdioServerConfig {
  name: string;
  transport: "stdio";
  command: string;
  args: string[];
  /** `args` as written in the file, before `${VAR}` expansion (what diagnostics print). */
  argsAsWritten: string[];
  env: Record<string, string>;
  cwd: string;
  /** The values `${VAR}` references took from the environment: masked wherever they appear. */
  expandedValues?: string[];
}

/** A Streamable HTTP server, expanded and ready to connect. */
export interface HttpServerConfig {
  name: string;
  transport: "http";
  url: string;
  /** `url` as written in the file, before `${VAR}` expansion (what diagnostics print). */
  urlAsWritten: string;
  headers: Record<string, string>;
  /** The values `${VAR}` references took from the environment: masked wherever they appear. */
  expandedValues?: string[];
}

/** One configured MCP server. */
export type McpServerConfig = StdioServerConfig | HttpServerConfig;

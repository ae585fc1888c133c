import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { z } from "zod";
import { MeshflowError } from "../errors/MeshflowError.js";
import { formatJsonPath } from "../json/jsonPath.js";
import { parseJsonText } from "../json/parseJsonText.js";
import { plainErrorMap, zodProblems } from "../prd/zodProblems.js";
import type { Problem } from "../problems/Problem.js";
import { expandEnv } from "./expandEnv.js";
import {
  HttpServerEntrySchema,
  McpConfigFileSchema,
  type McpServerConfig,
  ServerNameSchema,
  StdioServerEntrySchema,
} from "./McpConfigSchema.js";

/** Where the MCP config came from. */
export type McpConfigSource = "flag" | "env" | "cwd" | "none";

/** A loaded MCP config: usable servers, and the problems of the file and of each unusable server. */
export interface McpConfig {
  /** The file read, or undefined when no config was found. */
  file: string | undefined;
  source: McpConfigSource;
  /** Servers that are valid and fully expanded, by name, in file order. */
  servers: ReadonlyMap<string, McpServerConfig>;
  /** Servers that are configured but unusable, with why. */
  invalid: ReadonlyMap<string, Problem[]>;
  /** Problems of the file as a whole (invalid JSON, no `mcpServers`). */
  problems: Problem[];
}

/** Options of {@link loadMcpConfig}; defaults read the real process environment and working directory. */
export interface LoadMcpConfigOptions {
  /** `--mcp-config <file>`. */
  file?: string | undefined;
  env?: Readonly<Record<string, string | undefined>>;
  cwd?: string;
}

/** Finds the MCP config: `--mcp-config`, then `FLOW_MCP_CONFIG`, then `./.mcp.json`. */
export function findMcpConfig(
  options: LoadMcpConfigOptions = {},
): { file: string; source: McpConfigSource } | undefined {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const named = options.file ? { file: options.file, source: "flag" as const, how: "--mcp-config" } : undefined;
  const fromEnv = env.FLOW_MCP_CONFIG
    ? { file: env.FLOW_MCP_CONFIG, source: "env" as const, how: "FLOW_MCP_CONFIG" }
    : undefined;
  const explicit = named ?? fromEnv;
  if (explicit) {
    if (!existsSync(resolve(cwd, explicit.file)))
      throw new MeshflowError(
        "file_not_found",
        `${explicit.file}: MCP config named by ${explicit.how} does not exist`,
        {
          details: { file: explicit.file },
        },
      );
    return { file: explicit.file, source: explicit.source };
  }
  return existsSync(resolve(cwd, ".mcp.json")) ? { file: ".mcp.json", source: "cwd" } : undefined;
}

function expandStrings(
  file: string,
  base: PropertyKey[],
  values: Record<string, string> | string[],
  env: Readonly<Record<string, string | undefined>>,
  problems: Problem[],
  expanded: string[],
): void {
  for (const [key, raw] of Object.entries(values)) {
    const result = expandEnv(raw, env);
    const path = formatJsonPath([...base, Array.isArray(values) ? Number(key) : key]);
    if (result.ok) {
      (values as Record<string, string>)[key] = result.value;
      expanded.push(...result.values);
    } else
      for (const name of result.missing)
        problems.push({
          file,
          path,
          message: `environment variable ${name} is not set (write \${${name}:-default} to give a default)`,
          severity: "error",
        });
  }
}

/**
 * An `env` value written as a relative path (`./…`, `../…`) made absolute against the server's folder:
 * some servers resolve a relative path against their own package folder (the memory server's
 * MEMORY_FILE_PATH), so a config that must travel with its project could only hold an absolute path.
 */
function anchorRelativePaths(env: Record<string, string>, cwd: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env))
    out[key] = value.startsWith("./") || value.startsWith("../") ? resolve(cwd, value) : value;
  return out;
}

function parseServer(
  file: string,
  configDir: string,
  name: string,
  entry: unknown,
  env: Readonly<Record<string, string | undefined>>,
): { server?: McpServerConfig; problems: Problem[] } {
  const base = ["mcpServers", name];
  const nameCheck = ServerNameSchema.safeParse(name);
  if (!nameCheck.success) return { problems: zodProblems(file, nameCheck.error.issues, base) };
  const obj = typeof entry === "object" && entry !== null ? (entry as Record<string, unknown>) : undefined;
  const type = obj?.type;
  const fail = (message: string, at: PropertyKey[] = base): { problems: Problem[] } => ({
    problems: [{ file, path: formatJsonPath(at), message, severity: "error" }],
  });
  if (!obj) return fail("expected an object with `command` (stdio) or `url` (Streamable HTTP)");
  if (type === "sse")
    return fail('the SSE transport is not supported; use Streamable HTTP ("type": "http")', [...base, "type"]);
  const problems: Problem[] = [];
  if (type === "stdio" || (type === undefined && "command" in obj)) {
    const parsed = StdioServerEntrySchema.safeParse(obj, { error: plainErrorMap });
    if (!parsed.success) return { problems: zodProblems(file, parsed.error.issues, base) };
    const { command, args, env: serverEnv, cwd } = parsed.data;
    const argsAsWritten = [...args];
    const strings = { command, cwd: cwd ?? "." };
    const expandedValues: string[] = [];
    expandStrings(file, base, strings, env, problems, expandedValues);
    expandStrings(file, [...base, "args"], args, env, problems, expandedValues);
    expandStrings(file, [...base, "env"], serverEnv, env, problems, expandedValues);
    if (problems.length) return { problems };
    const serverCwd = resolve(configDir, strings.cwd);
    return {
      server: {
        name,
        transport: "stdio",
        command: strings.command,
        args,
        argsAsWritten,
        env: anchorRelativePaths(serverEnv, serverCwd),
        cwd: serverCwd,
        ...(expandedValues.length ? { expandedValues: [...new Set(expandedValues)] } : {}),
      },
      problems,
    };
  }
  if (type === "http" || type === "streamable-http" || (type === undefined && "url" in obj)) {
    const parsed = HttpServerEntrySchema.safeParse(obj, { error: plainErrorMap });
    if (!parsed.success) return { problems: zodProblems(file, parsed.error.issues, base) };
    const strings = { url: parsed.data.url };
    const headers = parsed.data.headers;
    const expandedValues: string[] = [];
    expandStrings(file, base, strings, env, problems, expandedValues);
    expandStrings(file, [...base, "headers"], headers, env, problems, expandedValues);
    if (problems.length) return { problems };
    let url: URL;
    try {
      url = new URL(strings.url);
    } catch {
      return fail(`expected an http(s) URL, found "${strings.url}"`, [...base, "url"]);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:")
      return fail(`expected an http(s) URL, found protocol "${url.protocol}"`, [...base, "url"]);
    return {
      server: {
        name,
        transport: "http",
        url: url.toString(),
        urlAsWritten: parsed.data.url,
        headers,
        ...(expandedValues.length ? { expandedValues: [...new Set(expandedValues)] } : {}),
      },
      problems,
    };
  }
  if (type !== undefined)
    return fail(`unknown type ${JSON.stringify(type)} (expected "stdio" or "http")`, [...base, "type"]);
  return fail("expected `command` (stdio server) or `url` (Streamable HTTP server)");
}

/**
 * Loads the MCP config in Claude Code's `.mcp.json` format, found by {@link findMcpConfig}.
 * `${VAR}` / `${VAR:-default}` are expanded in command, args, env, cwd, url and headers; a stdio
 * server's `cwd` is relative to the config file's folder (and defaults to it), and so is an `env` value
 * that starts with `./` or `../` (made absolute against the server's `cwd`).
 * Throws `file_not_found` only when a config named by flag or environment is missing.
 */
export function loadMcpConfig(options: LoadMcpConfigOptions = {}): McpConfig {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const found = findMcpConfig(options);
  const empty = { servers: new Map(), invalid: new Map(), problems: [] };
  if (!found) return { file: undefined, source: "none", ...empty };
  const { file, source } = found;
  const absolute = resolve(cwd, file);
  const parsedText = parseJsonText(readFileSync(absolute, "utf8"));
  if (!parsedText.ok) {
    const { line, column } = parsedText.position;
    const message = `invalid JSON at line ${line}, column ${column}: ${parsedText.message}`;
    return { file, source, ...empty, problems: [{ file, path: "$", message, severity: "error" }] };
  }
  const top = McpConfigFileSchema.safeParse(parsedText.value, { error: plainErrorMap });
  if (!top.success) return { file, source, ...empty, problems: zodProblems(file, (top.error as z.ZodError).issues) };
  const servers = new Map<string, McpServerConfig>();
  const invalid = new Map<string, Problem[]>();
  for (const [name, entry] of Object.entries(top.data.mcpServers)) {
    const { server, problems } = parseServer(file, dirname(absolute), name, entry, env);
    if (server) servers.set(name, server);
    else invalid.set(name, problems);
  }
  return { file, source, servers, invalid, problems: [] };
}

/**
 * A copy of a server config safe to print: env and header values become `***`, args show their
 * `${VAR}` references as written rather than the expanded values, and `expandedValues` is left out.
 */
export function redactServerConfig(config: McpServerConfig): McpServerConfig {
  const mask = (values: Record<string, string>) => Object.fromEntries(Object.keys(values).map((k) => [k, "***"]));
  const { expandedValues: _secret, ...server } = config;
  if (server.transport === "stdio")
    return {
      ...server,
      args: [...server.argsAsWritten],
      argsAsWritten: [...server.argsAsWritten],
      env: mask(server.env),
    };
  let url = server.urlAsWritten;
  try {
    const parsed = new URL(url);
    if (parsed.password) {
      parsed.password = "***";
      url = parsed.toString();
    }
  } catch {
    // A URL with ${VAR} references may not parse as written; it holds no literal secret then.
  }
  return { ...server, url, urlAsWritten: url, headers: mask(server.headers) };
}

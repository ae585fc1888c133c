import { join, relative } from "node:path";
import type { ToolAnnotations, ToolDescriptor } from "@meshflow/core";
import type { ServerFailure } from "@meshflow/mcp";
import { EXIT, type ExitCode } from "../../exitCodes.js";
import {
  createPool,
  printInvalidServers,
  requireMcpConfig,
  selectServers,
  serverLogDir,
  withPool,
} from "../../mcpSetup.js";
import { type Output, plural, printJson } from "../../output.js";

/** Options of `flow tools list`. */
export interface ToolsListOptions {
  server?: string[];
  json?: boolean;
  mcpConfig?: string;
}

/** `read-only, idempotent` from a tool's hints. */
function hintLabels(annotations: ToolAnnotations): string {
  const labels: string[] = [];
  if (annotations.readOnlyHint) labels.push("read-only");
  if (annotations.destructiveHint) labels.push("destructive");
  if (annotations.idempotentHint) labels.push("idempotent");
  if (annotations.openWorldHint) labels.push("open-world");
  return labels.join(", ");
}

function firstLine(text: string, max = 90): string {
  const line = text.split("\n", 1)[0]?.trim() ?? "";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Prints a server that failed: name, command, cause and stderr tail, and where its full log is. */
export function printFailure(output: Output, failure: ServerFailure): void {
  output.err(`flow: ${failure.message}`);
  const log = join(serverLogDir(), `${failure.server}.log`);
  if (failure.stderrTail) output.err(`      full stderr log: ${relative(process.cwd(), log) || log}`);
}

function printTools(output: Output, servers: readonly string[], tools: readonly ToolDescriptor[]): void {
  const width = Math.min(60, Math.max(0, ...tools.map((t) => t.qualifiedName.length)));
  for (const server of servers) {
    const own = tools.filter((t) => t.server === server);
    if (!own.length) continue;
    output.out(`${server} (${plural(own.length, "tool")})`);
    for (const tool of own) {
      const hints = hintLabels(tool.annotations);
      output.out(`  ${tool.qualifiedName.padEnd(width)}  ${firstLine(tool.description)}${hints ? `  [${hints}]` : ""}`);
    }
  }
}

/**
 * `flow tools list`: every tool of every configured server (or of `--server`s). A server that
 * fails is reported and the others are still listed; exit 3 when any server failed, 1 when a
 * server is misconfigured.
 */
export async function toolsListCommand(options: ToolsListOptions, output: Output): Promise<ExitCode> {
  const config = requireMcpConfig(options.mcpConfig);
  const servers = selectServers(config, options.server);
  const usable = servers.filter((s) => config.servers.has(s));
  const pool = await createPool(config);
  const { tools, failures } = await withPool(pool, (p) => p.discover(usable));
  if (options.json)
    printJson(
      output,
      tools.map(({ qualifiedName, server, name, description, annotations }) => ({
        qualifiedName,
        server,
        name,
        description,
        annotations,
      })),
    );
  else printTools(output, usable, tools);
  const invalid = printInvalidServers(output, config, servers);
  for (const failure of failures) printFailure(output, failure);
  if (!options.json) {
    const listed = usable.length - failures.length;
    output.out(`\n${plural(tools.length, "tool")} from ${plural(listed, "server")}`);
  }
  if (failures.length) return EXIT.environment;
  return invalid ? EXIT.failure : EXIT.ok;
}

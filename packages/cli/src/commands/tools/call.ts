import {
  type ContentBlock,
  formatProblem,
  MeshflowError,
  parseJsonText,
  parseQualifiedName,
  type ToolResult,
} from "@meshflow/core";
import { EXIT, type ExitCode, exitCodeFor } from "../../exitCodes.js";
import { createPool, requireMcpConfig, withPool } from "../../mcpSetup.js";
import { type Output, printJson } from "../../output.js";

/** Options of `flow tools call`. */
export interface ToolsCallOptions {
  args?: string;
  json?: boolean;
  yes?: boolean;
  timeout?: string;
  mcpConfig?: string;
}

function parseArgs(text: string): Record<string, unknown> {
  const parsed = parseJsonText(text);
  if (!parsed.ok) {
    const { line, column } = parsed.position;
    throw new MeshflowError("usage", `--args: invalid JSON at line ${line}, column ${column}: ${parsed.message}`);
  }
  const value = parsed.value;
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new MeshflowError("usage", `--args: expected a JSON object of arguments, found ${JSON.stringify(value)}`);
  return value as Record<string, unknown>;
}

function parseTimeout(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const ms = Number(text);
  if (!Number.isInteger(ms) || ms <= 0)
    throw new MeshflowError("usage", `--timeout: expected a positive number of milliseconds, found "${text}"`);
  return ms;
}

/** One content block as text for a terminal: text as is, binary content summarised. */
function renderBlock(block: ContentBlock): string {
  if (typeof block.text === "string") return block.text;
  const mime = typeof block.mimeType === "string" ? ` ${block.mimeType}` : "";
  if (typeof block.data === "string") return `[${block.type}${mime}, ${block.data.length} bytes base64]`;
  const resource = block.resource as { uri?: unknown; text?: unknown } | undefined;
  if (resource && typeof resource.text === "string") return resource.text;
  const uri = typeof block.uri === "string" ? block.uri : typeof resource?.uri === "string" ? resource.uri : "";
  return uri ? `[${block.type} ${uri}]` : JSON.stringify(block);
}

function renderResult(result: ToolResult): string {
  if (result.content.length) return result.content.map(renderBlock).join("\n");
  return result.structuredContent ? JSON.stringify(result.structuredContent, null, 2) : "";
}

/**
 * `flow tools call <server>__<tool>`: one call through the full middleware chain. Prints the
 * result's content; a refusal goes to stderr with its code. Exit 1 on a tool error or refusal,
 * 3 when the server is unreachable or crashed.
 */
export async function toolsCallCommand(name: string, options: ToolsCallOptions, output: Output): Promise<ExitCode> {
  const args = parseArgs(options.args ?? "{}");
  const timeoutMs = parseTimeout(options.timeout);
  const config = requireMcpConfig(options.mcpConfig);
  const server = parseQualifiedName(name)?.server;
  const broken = server === undefined ? undefined : config.invalid.get(server);
  if (broken)
    throw new MeshflowError(
      "mcp_config_invalid",
      `MCP server "${server}" is misconfigured:\n${broken.map((p) => formatProblem(p)).join("\n")}`,
    );
  const { createToolChain } = await import("@meshflow/mcp");
  const pool = await createPool(config, timeoutMs !== undefined ? { callTimeoutMs: timeoutMs } : {});
  const controller = new AbortController();
  const abort = () => controller.abort();
  process.once("SIGINT", abort);
  let result: ToolResult;
  try {
    result = await withPool(pool, async (p) => {
      const call = createToolChain({ pool: p });
      // --yes: the person at the terminal has seen the tool is destructive and confirms this call.
      return call(name, args, { annotationAware: options.yes === true, signal: controller.signal });
    });
  } finally {
    process.off("SIGINT", abort);
  }
  if (result.code === "confirmation_required") {
    // The chain's token cannot outlive this process; the terminal's confirmation is --yes.
    const { refusal } = await import("@meshflow/mcp");
    result = refusal(
      "confirmation_required",
      `"${name}" is destructive (destructiveHint): re-run with --yes to confirm this call`,
    );
  }
  if (options.json) printJson(output, result);
  else if (result.code !== undefined) output.err(`flow: ${renderResult(result)}`);
  else if (result.isError) output.err(renderResult(result));
  else output.out(renderResult(result));
  if (result.code !== undefined) return exitCodeFor(result.code);
  return result.isError ? EXIT.failure : EXIT.ok;
}

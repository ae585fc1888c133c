import type { HarnessAdapter, HarnessEvent } from "../HarnessAdapter.js";
import { count, field, jsonLine, text, withoutVersionPath } from "../internal/jsonLine.js";

/** Claude Code names the step server's tools `mcp__meshflow__<tool>`. */
const PREFIX = "mcp__meshflow__";

/**
 * Claude Code (`@anthropic-ai/claude-code`): `claude -p` with its stream-json events, meshflow's step
 * server as its only MCP server (`--strict-mcp-config`), its own tools off (`--tools ""`), the
 * project's and local settings not loaded (a repository's `.claude/settings.json` could run hooks).
 */
export const claudeCode: HarnessAdapter = {
  name: "claude-code",
  packageName: "@anthropic-ai/claude-code",
  program: "claude",
  providers: ["anthropic"],
  keyVariables: ["ANTHROPIC_API_KEY"],

  command(launch) {
    const argv = [
      launch.program,
      "-p",
      "--output-format",
      "stream-json",
      "--verbose",
      "--strict-mcp-config",
      "--mcp-config",
      `${launch.configDir}/mcp.json`,
      "--setting-sources",
      "user",
      "--allowedTools",
      "mcp__meshflow",
    ];
    if (launch.builtinTools) {
      argv.push("--permission-mode", "acceptEdits");
      // What it would ask its user about goes through meshflow's approvals instead (a person decides).
      if (launch.permissionPromptTool) argv.push("--permission-prompt-tool", `${PREFIX}${launch.permissionPromptTool}`);
    } else argv.push("--tools", "");
    if (launch.model) argv.push("--model", launch.model.modelId);
    if (launch.session) argv.push("--resume", launch.session);
    const env: Record<string, string> = {
      // Every tool is offered at once: no deferred loading that would add a search tool of its own.
      ENABLE_TOOL_SEARCH: "false",
      DISABLE_AUTOUPDATER: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    };
    if (launch.baseUrl) env.ANTHROPIC_BASE_URL = withoutVersionPath(launch.baseUrl);
    if (launch.apiKey) env.ANTHROPIC_API_KEY = launch.apiKey;
    const config = {
      mcpServers: {
        meshflow: { type: "http", url: launch.server.url, headers: { Authorization: `Bearer ${launch.server.token}` } },
      },
    };
    return { argv, env, files: { "mcp.json": JSON.stringify(config) } };
  },

  parse(line) {
    const event = jsonLine(line);
    if (!event) return [];
    const found: HarnessEvent[] = [];
    if (typeof event.session_id === "string" && event.type === "system" && event.subtype === "init")
      found.push({ type: "session", id: event.session_id });
    if (event.type === "system" && event.subtype === "api_retry") {
      const status = count(event.error_status);
      if (status === 401 || status === 403)
        found.push({
          type: "auth_error",
          status,
          message: `the model endpoint answered ${status} (${text(event.error)})`,
        });
    }
    if (event.type === "assistant") {
      const message = field(event, "message");
      const content = Array.isArray(message.content) ? (message.content as Record<string, unknown>[]) : [];
      const usage = field(message, "usage");
      found.push({
        type: "turn",
        id: text(message.id),
        text: content
          .filter((c) => c?.type === "text")
          .map((c) => text(c.text))
          .join(""),
        toolCalls: content.filter((c) => c?.type === "tool_use").map((c) => text(c.name).replace(PREFIX, "")),
        inputTokens:
          count(usage.input_tokens) + count(usage.cache_read_input_tokens) + count(usage.cache_creation_input_tokens),
        outputTokens: count(usage.output_tokens),
      });
    }
    // The tool results of a turn: the turn is over, and journaled with the session before the next one.
    if (event.type === "user") found.push({ type: "turn_end" });
    if (event.type === "result")
      found.push({
        type: "result",
        text: text(event.result),
        isError: event.is_error === true,
        ...(typeof event.total_cost_usd === "number" ? { costUsd: event.total_cost_usd } : {}),
      });
    return found;
  },
};

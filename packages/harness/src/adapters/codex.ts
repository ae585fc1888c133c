import { modelProviderPart } from "@meshflow/core";
import type { HarnessAdapter, HarnessEvent } from "../HarnessAdapter.js";
import { count, field, jsonLine, text } from "../internal/jsonLine.js";

/**
 * Codex's own tools and features turned off for a step (`--disable <feature>`): shell and command
 * sessions, sub-agents, goals, images, apps and plugins, browser and computer use, hooks, skills. What
 * stays are its readers of MCP resources (which reach only meshflow's step server, which has none)
 * and `request_user_input` (no person answers in `codex exec`).
 */
const FEATURES_OFF = [
  "shell_tool",
  "unified_exec",
  "multi_agent",
  "goals",
  "image_generation",
  "apps",
  "plugins",
  "sleep_tool",
  "tool_suggest",
  "browser_use",
  "computer_use",
  "hooks",
  "skill_search",
  "view_image",
];

/** A TOML string. */
function toml(value: string): string {
  return JSON.stringify(value);
}

/** An HTTP status a Codex error message names (`unexpected status 401 Unauthorized: …`), or 0. */
function statusIn(message: string): number {
  const found = /\b(401|403)\b/.exec(message);
  return found ? Number(found[1]) : 0;
}

/**
 * Codex (`@openai/codex`): `codex exec --json`, the user's `config.toml` and rules not loaded
 * (`--ignore-user-config`, `--ignore-rules`), meshflow's step server given with `-c` overrides as its
 * only MCP server (its calls approved: meshflow's own guard and confirmations decide), its own tools
 * off, and a read-only sandbox.
 */
export const codex: HarnessAdapter = {
  name: "codex",
  packageName: "@openai/codex",
  program: "codex",
  providers: ["openai", "openai-compatible"],
  keyVariables: ["OPENAI_API_KEY"],

  command(launch) {
    const argv = [launch.program, "exec", "--json", "--skip-git-repo-check", "--ignore-user-config", "--ignore-rules"];
    const set = (key: string, value: string) => argv.push("-c", `${key}=${value}`);
    set(
      "mcp_servers.meshflow",
      `{ url = ${toml(launch.server.url)}, bearer_token_env_var = "MESHFLOW_STEP_TOKEN", default_tools_approval_mode = "approve" }`,
    );
    set("approval_policy", toml("never"));
    set("web_search", toml("disabled"));
    set("sandbox_mode", toml(launch.builtinTools ? "workspace-write" : "read-only"));
    if (!launch.builtinTools) for (const feature of FEATURES_OFF) argv.push("--disable", feature);
    const env: Record<string, string> = { MESHFLOW_STEP_TOKEN: launch.server.token };
    if (launch.model) {
      const own = modelProviderPart(launch.model.provider).baseUrl;
      const baseUrl = launch.baseUrl ?? ("default" in own ? own.default : undefined);
      if (baseUrl) {
        set(
          "model_providers.meshflow",
          `{ name = "meshflow", base_url = ${toml(baseUrl)}, env_key = "MESHFLOW_MODEL_KEY", wire_api = "responses" }`,
        );
        set("model_provider", toml("meshflow"));
        env.MESHFLOW_MODEL_KEY = launch.apiKey ?? "";
      }
      argv.push("-m", launch.model.modelId);
    }
    if (launch.session) argv.push("resume", launch.session);
    argv.push("-");
    return { argv, env };
  },

  parse(line) {
    const event = jsonLine(line);
    if (!event) return [];
    const found: HarnessEvent[] = [];
    const item = field(event, "item");
    switch (event.type) {
      case "thread.started":
        if (typeof event.thread_id === "string") found.push({ type: "session", id: event.thread_id });
        break;
      case "item.started":
        if (item.type === "mcp_tool_call")
          found.push({
            type: "turn",
            id: "turn",
            text: "",
            toolCalls: [text(item.tool)],
            inputTokens: 0,
            outputTokens: 0,
          });
        break;
      case "item.completed":
        if (item.type === "agent_message")
          found.push({
            type: "turn",
            id: "turn",
            text: text(item.text),
            toolCalls: [],
            inputTokens: 0,
            outputTokens: 0,
          });
        break;
      case "turn.completed": {
        const usage = field(event, "usage");
        found.push({
          type: "turn",
          id: "turn",
          text: "",
          toolCalls: [],
          inputTokens: count(usage.input_tokens),
          outputTokens: count(usage.output_tokens) + count(usage.reasoning_output_tokens),
          finished: true,
        });
        break;
      }
      case "error":
      case "turn.failed": {
        const message = text(event.message) || text(field(event, "error").message);
        const status = statusIn(message);
        if (status)
          found.push({ type: "auth_error", status, message: `the model endpoint answered ${status} (${message})` });
        else if (event.type === "turn.failed") found.push({ type: "result", text: message, isError: true });
        break;
      }
    }
    return found;
  },
};

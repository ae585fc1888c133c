import { MODEL_PROVIDERS, modelProviderPart } from "@meshflow/core";
import type { HarnessAdapter, HarnessEvent } from "../HarnessAdapter.js";
import { count, field, jsonLine, text } from "../internal/jsonLine.js";

/** OpenCode names the step server's tools `meshflow_<tool>`. */
const PREFIX = "meshflow_";

/**
 * OpenCode (`opencode-ai`): `opencode run --format json`, its configuration given whole in
 * `OPENCODE_CONFIG_CONTENT` (meshflow's step server as its only MCP server, every tool but the
 * server's off), the project's config and the user's global config not loaded (`XDG_CONFIG_HOME`
 * points at the step's own folder: a repository's `opencode.json` could add plugins or servers).
 */
export const opencode: HarnessAdapter = {
  name: "opencode",
  packageName: "opencode-ai",
  program: "opencode",
  providers: MODEL_PROVIDERS,
  keyVariables: ["ANTHROPIC_API_KEY", "OPENAI_API_KEY"],

  command(launch) {
    const argv = [launch.program, "run", "--format", "json"];
    if (launch.session) argv.push("--session", launch.session);
    const config: Record<string, unknown> = {
      $schema: "https://opencode.ai/config.json",
      autoupdate: false,
      share: "disabled",
      mcp: {
        meshflow: {
          type: "remote",
          url: launch.server.url,
          headers: { Authorization: `Bearer ${launch.server.token}` },
          enabled: true,
        },
      },
    };
    if (!launch.builtinTools) config.tools = { "*": false, [`${PREFIX}*`]: true };
    if (launch.model) {
      const { provider, modelId } = launch.model;
      config.provider = {
        meshflow: {
          npm: modelProviderPart(provider).sdkPackage,
          name: `meshflow ${provider}`,
          options: {
            ...(launch.baseUrl ? { baseURL: launch.baseUrl } : {}),
            ...(launch.apiKey ? { apiKey: launch.apiKey } : {}),
          },
          models: { [modelId]: { name: modelId } },
        },
      };
      config.model = `meshflow/${modelId}`;
      config.small_model = `meshflow/${modelId}`;
    }
    return {
      argv,
      env: {
        OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
        XDG_CONFIG_HOME: launch.configDir,
        OPENCODE_DISABLE_PROJECT_CONFIG: "1",
        OPENCODE_DISABLE_CLAUDE_CODE: "1",
        OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
        OPENCODE_DISABLE_EXTERNAL_SKILLS: "1",
        OPENCODE_DISABLE_AUTOUPDATE: "1",
        OPENCODE_DISABLE_MODELS_FETCH: "1",
        OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
        OPENCODE_DISABLE_SHARE: "1",
      },
      unset: ["OPENCODE_CONFIG", "OPENCODE_CONFIG_DIR"],
    };
  },

  parse(line) {
    const event = jsonLine(line);
    if (!event) return [];
    const found: HarnessEvent[] = [];
    if (typeof event.sessionID === "string") found.push({ type: "session", id: event.sessionID });
    const part = field(event, "part");
    const id = text(part.messageID);
    switch (event.type) {
      case "text":
        found.push({ type: "turn", id, text: text(part.text), toolCalls: [], inputTokens: 0, outputTokens: 0 });
        break;
      case "tool_use":
        found.push({
          type: "turn",
          id,
          text: "",
          toolCalls: [text(part.tool).replace(PREFIX, "")],
          inputTokens: 0,
          outputTokens: 0,
        });
        break;
      case "step_finish": {
        const tokens = field(part, "tokens");
        const cache = field(tokens, "cache");
        found.push({
          type: "turn",
          id,
          text: "",
          toolCalls: [],
          inputTokens: count(tokens.input) + count(cache.read) + count(cache.write),
          outputTokens: count(tokens.output) + count(tokens.reasoning),
          ...(typeof part.cost === "number" ? { costUsd: part.cost } : {}),
          finished: true,
        });
        break;
      }
      case "error": {
        const error = field(event, "error");
        const data = field(error, "data");
        const status = count(data.statusCode);
        const message = text(data.message) || text(error.name) || "error";
        found.push(
          status === 401 || status === 403
            ? { type: "auth_error", status, message: `the model endpoint answered ${status} (${message})` }
            : { type: "result", text: message, isError: true },
        );
        break;
      }
    }
    return found;
  },
};

import { describe, expect, it } from "vitest";
import { claudeCode } from "./claudeCode.js";
import { codex } from "./codex.js";
import { opencode } from "./opencode.js";

const launch = {
  program: "/bin/prog",
  server: { url: "http://127.0.0.1:1/mcp", token: "tok" },
  model: { provider: "anthropic" as const, modelId: "claude-x", name: "anthropic:claude-x" },
  baseUrl: "http://127.0.0.1:2/v1",
  apiKey: "sk",
  configDir: "/tmp/step",
  builtinTools: false,
};

describe("claudeCode", () => {
  it("turns its own tools off, names only meshflow's server, and strips the base URL's /v1", () => {
    const command = claudeCode.command(launch);
    expect(command.argv).toEqual(expect.arrayContaining(["--strict-mcp-config", "--tools", "", "--model", "claude-x"]));
    expect(command.argv).not.toContain("--dangerously-skip-permissions");
    expect(command.env).toMatchObject({ ANTHROPIC_BASE_URL: "http://127.0.0.1:2", ANTHROPIC_API_KEY: "sk" });
    expect(JSON.parse(command.files?.["mcp.json"] ?? "{}")).toEqual({
      mcpServers: { meshflow: { type: "http", url: launch.server.url, headers: { Authorization: "Bearer tok" } } },
    });
    expect(claudeCode.command({ ...launch, session: "s-1" }).argv).toEqual(expect.arrayContaining(["--resume", "s-1"]));
  });

  it("keeps its own tools on with --harness-builtin-tools, with or without meshflow's permission prompt tool", () => {
    // Regression: adding --permission-prompt-tool made the `else` that turns the tools off belong to it,
    // so --harness-builtin-tools without approvals ran with every tool off.
    const own = claudeCode.command({ ...launch, builtinTools: true }).argv;
    expect(own).toContain("acceptEdits");
    expect(own).not.toContain("--tools");
    expect(own).not.toContain("--permission-prompt-tool");
    const asked = claudeCode.command({ ...launch, builtinTools: true, permissionPromptTool: "approve_own_tool" }).argv;
    expect(asked).toEqual(expect.arrayContaining(["--permission-prompt-tool", "mcp__meshflow__approve_own_tool"]));
    expect(asked).not.toContain("--tools");
  });

  it("reads its stream: the session, a turn's words and calls, a refused key, the result and its cost", () => {
    expect(claudeCode.parse('{"type":"system","subtype":"init","session_id":"abc"}')).toEqual([
      { type: "session", id: "abc" },
    ]);
    const turn = claudeCode.parse(
      JSON.stringify({
        type: "assistant",
        message: {
          id: "m1",
          content: [
            { type: "text", text: "Writing." },
            { type: "tool_use", name: "mcp__meshflow__fs__write_file" },
          ],
          usage: { input_tokens: 10, cache_read_input_tokens: 5, output_tokens: 3 },
        },
      }),
    );
    expect(turn).toEqual([
      { type: "turn", id: "m1", text: "Writing.", toolCalls: ["fs__write_file"], inputTokens: 15, outputTokens: 3 },
    ]);
    expect(claudeCode.parse('{"type":"system","subtype":"api_retry","error_status":401,"error":"x"}')[0]).toMatchObject(
      {
        type: "auth_error",
        status: 401,
      },
    );
    expect(claudeCode.parse('{"type":"result","is_error":false,"result":"ok","total_cost_usd":0.5}')).toEqual([
      { type: "result", text: "ok", isError: false, costUsd: 0.5 },
    ]);
    expect(claudeCode.parse("not json")).toEqual([]);
  });
});

describe("opencode", () => {
  it("gives its whole config in the environment with every tool but meshflow's off", () => {
    const command = opencode.command({
      ...launch,
      model: { provider: "openai-compatible", modelId: "m", name: "openai-compatible:m" },
    });
    const config = JSON.parse(command.env.OPENCODE_CONFIG_CONTENT ?? "{}");
    expect(config.tools).toEqual({ "*": false, "meshflow_*": true });
    expect(config.provider.meshflow).toMatchObject({
      npm: "@ai-sdk/openai-compatible",
      options: { baseURL: launch.baseUrl, apiKey: "sk" },
    });
    expect(config.mcp.meshflow).toMatchObject({ type: "remote", headers: { Authorization: "Bearer tok" } });
    expect(command.env).toMatchObject({ OPENCODE_DISABLE_PROJECT_CONFIG: "1", XDG_CONFIG_HOME: "/tmp/step" });
  });

  it("reads a step's tokens and cost, and a 401 as a refused key", () => {
    const finished = opencode.parse(
      JSON.stringify({
        type: "step_finish",
        sessionID: "ses",
        part: { messageID: "m", tokens: { input: 7, output: 2, cache: { read: 1 } }, cost: 0.01 },
      }),
    );
    expect(finished).toEqual([
      { type: "session", id: "ses" },
      {
        type: "turn",
        id: "m",
        text: "",
        toolCalls: [],
        inputTokens: 8,
        outputTokens: 2,
        costUsd: 0.01,
        finished: true,
      },
    ]);
    const refused = opencode.parse(
      '{"type":"error","error":{"name":"APIError","data":{"statusCode":401,"message":"no"}}}',
    );
    expect(refused[0]).toMatchObject({ type: "auth_error", status: 401 });
  });
});

describe("codex", () => {
  it("ignores the user's config, serves meshflow's server with approved calls, and turns its own tools off", () => {
    const command = codex.command({ ...launch, model: { provider: "openai", modelId: "g", name: "openai:g" } });
    const argv = command.argv.join(" ");
    expect(argv).toContain("--ignore-user-config");
    expect(argv).toContain('default_tools_approval_mode = "approve"');
    expect(argv).toContain("--disable shell_tool");
    expect(argv).toContain('wire_api = "responses"');
    expect(command.env).toEqual({ MESHFLOW_STEP_TOKEN: "tok", MESHFLOW_MODEL_KEY: "sk" });
    expect(command.argv.at(-1)).toBe("-");
  });

  it("reads the thread, the calls, the usage, and a 401 in an error message", () => {
    expect(codex.parse('{"type":"thread.started","thread_id":"t1"}')).toEqual([{ type: "session", id: "t1" }]);
    expect(codex.parse('{"type":"turn.completed","usage":{"input_tokens":9,"output_tokens":1}}')[0]).toMatchObject({
      inputTokens: 9,
      outputTokens: 1,
      finished: true,
    });
    expect(codex.parse('{"type":"error","message":"unexpected status 401 Unauthorized: no"}')[0]).toMatchObject({
      type: "auth_error",
      status: 401,
    });
  });
});

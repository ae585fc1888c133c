import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import {
  type ReceivedRequest,
  ScriptedModelServer,
  type ScriptedReply,
  type ScriptedToolCall,
} from "@meshflow/model/testing";
import { type FlowWorkspace, flowWorkspace } from "./flowWorkspace.js";
import { ROOT } from "./runFlow.js";

/** Where `scripts/ensure-coding-agents` installs the pinned coding agents the harness tests run. */
export const CODING_AGENTS_BIN = join(ROOT, "tests/coding-agents/node_modules/.bin");

/** The harnesses, with the model each thinks with against the scripted server. */
const HARNESS_MODELS = {
  "claude-code": "anthropic:claude-test",
  opencode: "openai-compatible:scripted",
  codex: "openai:scripted",
} as const;

export type HarnessName = keyof typeof HARNESS_MODELS;

/** The key the scripted server wants, and the variable each harness's provider reads it from. */
export const KEY = "sk-test-harness-0123456789";
const KEY_VARIABLE: Record<HarnessName, string> = {
  "claude-code": "ANTHROPIC_API_KEY",
  opencode: "FLOW_MODEL_API_KEY",
  codex: "OPENAI_API_KEY",
};

/** Whether the pinned programs are installed (`scripts/ensure-coding-agents`, which `npm test` runs). */
export function codingAgentsInstalled(): boolean {
  return ["claude", "opencode", "codex"].every((p) => existsSync(join(CODING_AGENTS_BIN, p)));
}

/**
 * A tool call as each harness's model names the tools of meshflow's step server: Claude Code
 * `mcp__meshflow__<tool>`, OpenCode `meshflow_<tool>`, Codex `<tool>` in the `mcp__meshflow` namespace.
 */
export function harnessCall(harness: HarnessName, tool: string, input: Record<string, unknown>): ScriptedToolCall {
  if (harness === "claude-code") return { name: `mcp__meshflow__${tool}`, input };
  if (harness === "opencode") return { name: `meshflow_${tool}`, input };
  return { name: tool, namespace: "mcp__meshflow", input };
}

/** The step server's tool names a request offered, without the harness's prefix. */
export function offeredStepTools(harness: HarnessName, request: ReceivedRequest): string[] {
  const prefix =
    harness === "claude-code" ? "mcp__meshflow__" : harness === "opencode" ? "meshflow_" : "mcp__meshflow__";
  return request.tools.filter((t) => t.name.startsWith(prefix)).map((t) => t.name.slice(prefix.length));
}

/** The tools a request offered that are not the step server's: the harness's own. */
export function harnessOwnTools(harness: HarnessName, request: ReceivedRequest): string[] {
  const prefix =
    harness === "claude-code" ? "mcp__meshflow__" : harness === "opencode" ? "meshflow_" : "mcp__meshflow__";
  return request.tools.filter((t) => !t.name.startsWith(prefix)).map((t) => t.name);
}

/**
 * Codex's tools that stay offered with every feature of its own off: readers of MCP resources (they
 * reach only meshflow's step server, which has none) and `request_user_input` (no person answers in
 * `codex exec`). meshflow documents them; nothing else of Codex's may be offered.
 */
export const CODEX_REMAINING_TOOLS = [
  "list_mcp_resources",
  "list_mcp_resource_templates",
  "read_mcp_resource",
  "request_user_input",
];

/** The requests of a step's turns: those offering tools (OpenCode also asks for a title, with none). */
export function turnRequests(server: ScriptedModelServer): ReceivedRequest[] {
  return server.requests.filter((r) => r.tools.length > 0);
}

/** How many turns the harness has had in the request's conversation (its assistant messages). */
export function turnsSoFar(request: ReceivedRequest): number {
  return request.messages.filter((m) => m.role === "assistant").length;
}

/**
 * A scripted handler playing a harness's model: requests without tools (a title) get text; a turn
 * request gets `replies[n]` where n is the turns the conversation already holds; past the end, text.
 */
function scriptedTurns(replies: readonly ScriptedReply[]): (request: ReceivedRequest) => ScriptedReply | undefined {
  return (request) => {
    if (!request.tools.length) return { text: "Harness step" };
    return replies[turnsSoFar(request)] ?? { text: "done" };
  };
}

/** What a harness test's model answers: a handler, or (by default) `turns` replayed by {@link scriptedTurns}. */
export interface HarnessScript {
  turns: ScriptedReply[];
  handler?: (request: ReceivedRequest, index: number) => ScriptedReply | undefined | Promise<ScriptedReply | undefined>;
}

/**
 * A workspace whose `flow` finds the pinned coding agents on PATH, with its own HOME and config
 * folders, and a scripted model server answering from `script` (fill it once the workspace exists).
 */
export async function harnessWorkspace(
  harness: HarnessName,
  env: Record<string, string | undefined> = {},
  apiKey = KEY,
): Promise<{ ws: FlowWorkspace; server: ScriptedModelServer; home: string; script: HarnessScript }> {
  const script: HarnessScript = { turns: [] };
  const server = await ScriptedModelServer.start({
    handler: (request, index) => (script.handler ?? scriptedTurns(script.turns))(request, index),
    apiKey,
  });
  const home = mkdtempSync(join(tmpdir(), "meshflow-harness-home-"));
  for (const dir of [".config", ".local/share", ".cache", ".local/state"])
    mkdirSync(join(home, dir), { recursive: true });
  const ws = flowWorkspace({
    agents: join(ROOT, "agents"),
    env: {
      FLOW_SKILLS: join(ROOT, "skills"),
      PATH: `${CODING_AGENTS_BIN}${delimiter}${process.env.PATH ?? ""}`,
      HOME: home,
      XDG_CONFIG_HOME: join(home, ".config"),
      XDG_DATA_HOME: join(home, ".local/share"),
      XDG_CACHE_HOME: join(home, ".cache"),
      XDG_STATE_HOME: join(home, ".local/state"),
      CODEX_HOME: join(home, ".codex"),
      FLOW_MODEL_BASE_URL: server.baseUrl,
      FLOW_MODEL_API_KEY: undefined,
      ANTHROPIC_API_KEY: undefined,
      OPENAI_API_KEY: undefined,
      FLOW_MODEL: undefined,
      [KEY_VARIABLE[harness]]: KEY,
      ...env,
    },
  });
  mkdirSync(join(home, ".codex"), { recursive: true });
  return { ws, server, home, script };
}

/** The flags of `flow run` for a harness thinking with its scripted model. */
export function harnessFlags(harness: HarnessName): string[] {
  return ["--harness", harness, "--model", HARNESS_MODELS[harness]];
}

/** A story for the development agent (step 7) on the filesystem server; its gate checks hello.txt. */
export function helloStory(files: string, expected = "hello\n") {
  return {
    title: "Say hello",
    description: "As a user I want a hello file.",
    acceptanceCriteria: ["files/hello.txt contains hello"],
    mavenSteps: [7],
    mcpTools: { step7: ["filesystem"] },
    verify: [
      {
        name: "hello",
        run: [
          process.execPath,
          "-e",
          `process.exit(require("fs").readFileSync(${JSON.stringify(join(files, "hello.txt"))}, "utf8") === ${JSON.stringify(expected)} ? 0 : 1)`,
        ],
      },
    ],
  };
}

/**
 * Kills (SIGKILL) every process whose environment has `HOME=<home>`: the harness a killed `flow` left
 * behind (it runs in a process group of its own), as a machine crash would take it too.
 */
export function killByHome(home: string): number {
  let killed = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let environ = "";
    try {
      environ = readFileSync(`/proc/${entry}/environ`, "utf8");
    } catch {
      continue;
    }
    if (!environ.split("\0").includes(`HOME=${home}`)) continue;
    try {
      process.kill(Number(entry), "SIGKILL");
      killed += 1;
    } catch {
      // gone already
    }
  }
  return killed;
}

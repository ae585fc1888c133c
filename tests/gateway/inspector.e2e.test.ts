import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GatewayFixture, gatewayFixture, type HttpFlow, startHttpFlow } from "../helpers/flowServe.js";
import { FLOW_BIN, ROOT, runNode } from "../helpers/runFlow.js";

/** The MCP Inspector's command line client (a real third-party MCP client), run as its `--cli` mode. */
const INSPECTOR = join(ROOT, "node_modules/@modelcontextprotocol/inspector-cli/build/cli.js");

interface InspectorRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (the inspector prints the answer of the one request it makes). */
  json(): Record<string, unknown>;
}

/**
 * Runs `mcp-inspector-cli --cli <target…> <options…>`. Its working directory is `tests/`: the
 * inspector reads its own package.json through a path relative to the working directory's parent.
 */
async function inspector(args: readonly string[], env: Record<string, string> = {}): Promise<InspectorRun> {
  const run = await runNode([INSPECTOR, "--cli", ...args], {
    cwd: join(ROOT, "tests"),
    env: { ...process.env, FLOW_SERVE_TOKEN: undefined, ...env },
  });
  return { ...run, json: () => JSON.parse(run.stdout) as Record<string, unknown> };
}

const text = (run: InspectorRun) => ((run.json().content as { text: string }[])[0] ?? { text: "" }).text;

let fx: GatewayFixture;
beforeAll(() => {
  fx = gatewayFixture();
});
afterAll(() => fx?.cleanup());

/** The inspector's target for `flow serve --stdio` on the fixture's config. */
const stdioTarget = () => [process.execPath, FLOW_BIN, "serve", "--stdio", "--mcp-config", fx.mcpConfig];
const logs = () => ({ FLOW_LOG_DIR: join(fx.dir, "logs") });

describe("MCP Inspector CLI against flow serve --stdio", () => {
  it("lists the tools with their annotations", async () => {
    const run = await inspector([...stdioTarget(), "--method", "tools/list"], logs());
    expect(run.code, run.stderr).toBe(0);
    const tools = run.json().tools as { name: string; annotations?: Record<string, unknown>; inputSchema: object }[];
    expect(tools.length).toBeLessThanOrEqual(40);
    const names = tools.map((t) => t.name);
    for (const name of [
      "flow_diagnose",
      "flow_emergency_stop",
      "get_confirmation_token",
      "enable_toolset",
      "everything__echo",
      "memory__delete_entities",
    ])
      expect(names).toContain(name);
    expect(tools.find((t) => t.name === "flow_emergency_unlock")?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
    });
    // The inspector does not read annotations: destructive tools take a confirmation token.
    expect(tools.find((t) => t.name === "memory__delete_entities")?.inputSchema).toMatchObject({
      properties: { confirmation_token: { type: "string" } },
    });
  });

  it("calls a proxied tool", async () => {
    const run = await inspector(
      [
        ...stdioTarget(),
        "--method",
        "tools/call",
        "--tool-name",
        "everything__echo",
        "--tool-arg",
        "message=from the inspector",
      ],
      logs(),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(text(run)).toBe("Echo: from the inspector");
  });

  it("enables a toolset (the notification is sent; the inspector's one-shot CLI prints only the answer)", async () => {
    const run = await inspector(
      [...stdioTarget(), "--method", "tools/call", "--tool-name", "enable_toolset", "--tool-arg", "name=filesystem"],
      { ...logs(), FLOW_CLIENT_MODE: "dynamic" },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.json().structuredContent).toMatchObject({ status: "enabled", toolset: "filesystem" });
    expect(text(run)).toContain("notifications/tools/list_changed sent");
  });
});

describe("MCP Inspector CLI against flow serve --http", () => {
  const TOKEN = "inspector-token-31415926535";
  let flow: HttpFlow;
  beforeAll(async () => {
    // filesystem does not fit in the default 40 tools beside everything and memory: loaded by name here.
    flow = await startHttpFlow(["--toolsets", "everything,filesystem"], {
      cwd: fx.dir,
      env: { FLOW_SERVE_TOKEN: TOKEN },
    });
  });
  afterAll(async () => {
    await flow?.stop();
  });
  const target = () => [flow.url, "--transport", "http", "--header", `Authorization: Bearer ${TOKEN}`];
  const callTool = (name: string, ...args: string[]) =>
    inspector([
      ...target(),
      "--method",
      "tools/call",
      "--tool-name",
      name,
      ...(args.length ? ["--tool-arg", ...args] : []),
    ]);

  it("gets 401 without the token", async () => {
    const run = await inspector([flow.url, "--transport", "http", "--method", "tools/list"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("unauthorized");
  });

  it("gets a confirmation token and uses it for a destructive tool", async () => {
    const file = join(fx.files, "inspector.txt");
    const args = { path: file, content: "confirmed through the inspector" };
    const refused = await callTool("filesystem__write_file", `path=${file}`, `content=${args.content}`);
    expect(refused.json()).toMatchObject({ isError: true, _meta: { "meshflow/code": "confirmation_required" } });
    expect(existsSync(file)).toBe(false);

    const issued = await callTool(
      "get_confirmation_token",
      "tool=filesystem__write_file",
      `arguments=${JSON.stringify(args)}`,
    );
    expect(issued.code, issued.stderr).toBe(0);
    const token = (issued.json().structuredContent as { confirmation_token: string }).confirmation_token;
    expect(token).toMatch(/^[\w-]{20,}$/);

    const done = await callTool(
      "filesystem__write_file",
      `path=${file}`,
      `content=${args.content}`,
      `confirmation_token=${token}`,
    );
    expect(done.json().isError).toBeUndefined();
    expect(readFileSync(file, "utf8")).toBe(args.content);
  });

  it("hits the guard after an emergency stop, while diagnose still works", async () => {
    expect((await callTool("flow_emergency_stop", "reason=inspector test")).code).toBe(0);
    const refused = await callTool("everything__echo", "message=blocked?");
    expect(refused.json()).toMatchObject({ isError: true, _meta: { "meshflow/code": "guard_locked" } });
    expect(text(refused)).toBe("guard_locked: inspector test");
    const diagnose = await callTool("flow_diagnose");
    expect(diagnose.json().structuredContent).toMatchObject({ guard: { locked: true, lockReason: "inspector test" } });

    const unlock = await callTool("flow_emergency_unlock");
    const token = (unlock.json().structuredContent as { error: { confirmationToken: string } }).error.confirmationToken;
    const unlocked = await callTool("flow_emergency_unlock", `confirmation_token=${token}`);
    expect(unlocked.json().structuredContent).toMatchObject({ locked: false, wasLocked: true });
    expect(text(await callTool("everything__echo", "message=free again"))).toBe("Echo: free again");
  });
});

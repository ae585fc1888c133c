import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { statedAllowlist } from "@meshflow/core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commandServer, testPool } from "../helpers/mcpServers.js";
import { FLOW_BIN, runFlow } from "../helpers/runFlow.js";
import {
  eventually,
  type FixtureWorkspace,
  isAlive,
  makeWorkspace,
  type ToolName,
  type ToolOutcome,
  toOutcome,
} from "../helpers/workspaceFixture.js";

let ws: FixtureWorkspace;
let configDir: FixtureWorkspace;

beforeAll(() => {
  ws = makeWorkspace();
  configDir = makeWorkspace({ git: false });
});
afterAll(() => {
  ws?.cleanup();
  configDir?.cleanup();
});

/** `flow workspace-server …` as a real child process, with an MCP SDK client on its stdio. */
async function serve(args: string[]): Promise<{
  client: Client;
  call: <N extends ToolName>(name: N, a?: object) => Promise<ToolOutcome<N>>;
  stderr: () => string;
  close: () => Promise<void>;
}> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [FLOW_BIN, "workspace-server", ...args],
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString("utf8");
  });
  const client = new Client({ name: "workspace-e2e", version: "1.0.0" });
  await client.connect(transport);
  return {
    client,
    call: async <N extends ToolName>(name: N, a: object = {}) =>
      toOutcome<N>(await client.callTool({ name, arguments: a as Record<string, unknown> })),
    stderr: () => stderr,
    close: () => client.close(),
  };
}

describe("flow workspace-server (stdio)", () => {
  it("serves the tools over stdio with the config file's allow list and limits", async () => {
    const config = join(configDir.root, "workspace.yaml");
    writeFileSync(config, `allow: [${JSON.stringify(process.execPath)}]\ntimeoutMs: 20000\nmaxOutputBytes: 500\n`);
    const s = await serve(["--root", ws.root, "--config", config]);
    try {
      const { tools } = await s.client.listTools();
      expect(tools.map((t) => t.name)).toHaveLength(7);
      const run = tools.find((t) => t.name === "run_command");
      expect(run?.annotations).toMatchObject({
        destructiveHint: true,
        readOnlyHint: false,
        idempotentHint: false,
        openWorldHint: false,
      });
      expect(run?.description).toContain(`Allowed executables: ${process.execPath}.`);

      const ok = await s.call("run_command", {
        command: process.execPath,
        args: ["-e", "process.stdout.write('y'.repeat(2000))"],
      });
      expect(ok.isError).toBe(false);
      expect(ok.data.stdout).toMatchObject({ bytes: 2000, truncated: true });

      const status = await s.call("git_status");
      expect(status.data.branch).toBe("main");

      const traversal = await s.call("read_file", { path: "../outside/secret.txt" });
      expect(traversal.data.code).toBe("path_traversal");
      const refused = await s.call("run_command", { command: "sh", args: ["-c", "id"] });
      expect(refused.data.code).toBe("command_not_allowed");
      expect(s.stderr()).toContain(`serving ${ws.root} over stdio`);
    } finally {
      await s.close();
    }
  });

  it("lets flags override the config file: --allow replaces its list, --max-output-bytes its cap", async () => {
    const config = join(configDir.root, "workspace.json");
    writeFileSync(config, JSON.stringify({ allow: ["git"], maxOutputBytes: 10 }));
    const s = await serve([
      "--root",
      ws.root,
      "--config",
      config,
      "--allow",
      process.execPath,
      "--max-output-bytes",
      "5000",
    ]);
    try {
      expect((await s.call("run_command", { command: "git", args: ["status"] })).data.code).toBe("command_not_allowed");
      const r = await s.call("run_command", {
        command: process.execPath,
        args: ["-e", "process.stdout.write('z'.repeat(2000))"],
      });
      expect(r.data.stdout).toMatchObject({ bytes: 2000, truncated: false });
    } finally {
      await s.close();
    }
  });

  it("states its allowlist on run_command's _meta, as the flags or the config file set it, and meshflow's discovery keeps it", async () => {
    const config = join(configDir.root, "workspace-allow.yaml");
    writeFileSync(config, "allow: [git, ./scripts/test.sh]\n");
    const stated = async (args: string[]) => {
      const s = await serve(["--root", ws.root, ...args]);
      try {
        const { tools } = await s.client.listTools();
        return tools.find((t) => t.name === "run_command")?._meta;
      } finally {
        await s.close();
      }
    };
    expect(await stated([])).toEqual({ "meshflow/allow": [] });
    expect(await stated(["--config", config])).toEqual({ "meshflow/allow": ["git", "./scripts/test.sh"] });
    expect(await stated(["--config", config, "--allow", "npm", "node"])).toEqual({ "meshflow/allow": ["npm", "node"] });

    // Through meshflow's client pool, as a run or `flow prd lint` discovers it.
    const pool = testPool([
      commandServer("workspace", process.execPath, [FLOW_BIN, "workspace-server", "--root", ws.root, "--allow", "npm"]),
    ]);
    const tools = await pool.listTools("workspace");
    const run = tools.find((t) => t.name === "run_command");
    expect(run && statedAllowlist(run)).toEqual(["npm"]);
    expect(tools.filter((t) => statedAllowlist(t)).map((t) => t.name)).toEqual(["run_command"]);
  });

  it("kills a running command when the client goes away", async () => {
    const pidFile = join(ws.root, "stdio-running.pid");
    const s = await serve(["--root", ws.root, "--allow", process.execPath]);
    const pending = s
      .call("run_command", {
        command: process.execPath,
        args: [
          "-e",
          `require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000)`,
        ],
      })
      .catch(() => undefined);
    expect(await eventually(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").length > 0, 20_000)).toBe(true);
    await s.close();
    await pending;
    expect(await eventually(() => !isAlive(Number(readFileSync(pidFile, "utf8"))))).toBe(true);
  });

  it("exits 0 when stdin ends", async () => {
    const r = await runFlow(["workspace-server", "--root", ws.root]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("allowed commands: none");
  });

  it("exits 2 with a clear message on a missing --root, a missing root folder or a bad flag", async () => {
    const noRoot = await runFlow(["workspace-server"]);
    expect(noRoot.code).toBe(2);
    expect(noRoot.stderr).toContain("--root <dir>");

    const missing = join(ws.root, "no-such-folder");
    const gone = await runFlow(["workspace-server", "--root", missing]);
    expect(gone.code).toBe(2);
    expect(gone.stderr).toContain(`flow: workspace root ${missing} does not exist`);

    const notDir = await runFlow(["workspace-server", "--root", join(ws.root, "README.md")]);
    expect(notDir.code).toBe(2);
    expect(notDir.stderr).toContain("is not a folder");

    const badFlag = await runFlow(["workspace-server", "--root", ws.root, "--timeout-ms", "soon"]);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toContain("expected a whole number > 0");
  });

  it("exits 2 naming the file and JSON path of an invalid config, and a missing one", async () => {
    const config = join(configDir.root, "bad.yaml");
    writeFileSync(config, "allow: node\ntimeoutMs: -5\ntimeoutSeconds: 3\n");
    const r = await runFlow(["workspace-server", "--root", ws.root, "--config", config]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${config}: $.allow:`);
    expect(r.stderr).toContain(`${config}: $.timeoutMs: timeoutMs must be > 0`);
    expect(r.stderr).toContain("timeoutSeconds");

    const missing = await runFlow([
      "workspace-server",
      "--root",
      ws.root,
      "--config",
      join(configDir.root, "none.yaml"),
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("none.yaml: cannot read workspace server config");
  });
});

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  codeOf,
  dataOf,
  type GatewayFixture,
  gatewayFixture,
  type ServeClient,
  serveStdioClient,
  textOf,
  until,
} from "../helpers/flowServe.js";
import { runFlow } from "../helpers/runFlow.js";

let fx: GatewayFixture;
beforeAll(() => {
  fx = gatewayFixture();
});
afterAll(() => fx?.cleanup());

/** A client of `flow serve --stdio` in the fixture folder (its .mcp.json is found there). */
async function serve(clientName: string, args: string[] = [], env: Record<string, string> = {}): Promise<ServeClient> {
  return serveStdioClient(args, { cwd: fx.dir, clientName, env });
}

const ownTools = [
  "flow_run_prd",
  "flow_run_status",
  "flow_approve",
  "flow_list_specialists",
  "flow_plan",
  "flow_coverage",
  "flow_diagnose",
  "flow_emergency_stop",
  "flow_emergency_unlock",
  "get_confirmation_token",
  "list_available_toolsets",
  "describe_toolset",
  "enable_toolset",
  "search_tools",
];

describe("flow serve --stdio", () => {
  describe("a dynamic client (cline)", () => {
    let s: ServeClient;
    beforeAll(async () => {
      s = await serve("cline");
    });
    afterAll(async () => {
      await s?.close();
    });

    it("lists core, discovery and the toolsets that fit in 40 tools, each annotated and within 64 characters", async () => {
      const { tools } = await s.client.listTools();
      const names = tools.map((t) => t.name);
      // core 10 + discovery 4 + everything 13 + memory 9: filesystem (14 more) would pass 40, so it waits
      // for enable_toolset; memory, after it in the config, still fits.
      expect(names).toHaveLength(36);
      for (const own of ownTools) expect(names).toContain(own);
      expect(names.filter((n) => n.startsWith("everything__"))).toHaveLength(13);
      expect(names.filter((n) => n.startsWith("memory__"))).toHaveLength(9);
      expect(names.some((n) => n.startsWith("filesystem__"))).toBe(false);
      for (const tool of tools) {
        expect(tool.name.length).toBeLessThanOrEqual(64);
        expect(tool.name).toMatch(/^[A-Za-z0-9_-]+$/);
      }
      for (const tool of tools.filter((t) => !t.name.includes("__")))
        expect(tool.annotations, tool.name).toMatchObject({
          readOnlyHint: expect.any(Boolean),
          destructiveHint: expect.any(Boolean),
          idempotentHint: expect.any(Boolean),
        });
      expect(s.stderr()).toContain("session: cline 1.0.0, mode dynamic (client-name)");
      expect(s.client.getInstructions()).toContain("Available toolsets: filesystem (14)");
    });

    it("calls a proxied tool on its server", async () => {
      const result = await s.call("everything__echo", { message: "through the gateway" });
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toBe("Echo: through the gateway");
      const sum = await s.call("everything__get-sum", { a: 2, b: 40 });
      expect(textOf(sum)).toContain("42");
    });

    it("refuses arguments that break the server's schema before calling it", async () => {
      const result = await s.call("everything__get-sum", { a: "two", b: 40 });
      expect(result.isError).toBe(true);
      expect(codeOf(result)).toBe("invalid_arguments");
      expect(textOf(result)).toContain("$.a: must be number");
    });

    it("enables a toolset: list_changed arrives and the new tools work", async () => {
      const before = s.listChanged();
      const result = await s.call("enable_toolset", { name: "filesystem" });
      expect(dataOf(result)).toMatchObject({ status: "enabled", toolset: "filesystem" });
      expect(await until(() => s.listChanged() > before)).toBe(true);
      const names = await s.names();
      expect(names.filter((n) => n.startsWith("filesystem__"))).toHaveLength(14);
      const allowed = await s.call("filesystem__list_allowed_directories");
      expect(allowed.isError).toBeFalsy();
      expect(textOf(allowed)).toContain(fx.files);
      const listed = dataOf(await s.call("list_available_toolsets")).toolsets as { name: string; loaded: boolean }[];
      expect(listed.find((t) => t.name === "filesystem")?.loaded).toBe(true);
    });

    it("a destructive tool needs a confirmation token, bound to its arguments and used once", async () => {
      const file = join(fx.files, "confirmed.txt");
      const args = { path: file, content: "written after confirmation" };
      const refused = await s.call("filesystem__write_file", args);
      expect(codeOf(refused)).toBe("confirmation_required");
      expect(existsSync(file)).toBe(false);

      const issued = await s.call("get_confirmation_token", { tool: "filesystem__write_file", arguments: args });
      const token = dataOf(issued).confirmation_token as string;
      const lifetime = Date.parse(dataOf(issued).expiresAt as string) - Date.now();
      expect(lifetime).toBeGreaterThan(30_000);
      expect(lifetime).toBeLessThanOrEqual(60_000);

      const otherArgs = await s.call("filesystem__write_file", {
        ...args,
        content: "other",
        confirmation_token: token,
      });
      expect(codeOf(otherArgs)).toBe("confirmation_invalid");
      expect(existsSync(file)).toBe(false);

      const second = dataOf(
        await s.call("get_confirmation_token", { tool: "filesystem__write_file", arguments: args }),
      );
      const ok = await s.call("filesystem__write_file", { ...args, confirmation_token: second.confirmation_token });
      expect(ok.isError).toBeFalsy();
      expect(readFileSync(file, "utf8")).toBe("written after confirmation");
      const replay = await s.call("filesystem__write_file", { ...args, confirmation_token: second.confirmation_token });
      expect(codeOf(replay)).toBe("confirmation_invalid");
      expect(textOf(replay)).toContain("already used");
    });

    it("emergency stop locks every guarded tool; diagnose still answers; unlock needs confirmation", async () => {
      const stop = await s.call("flow_emergency_stop", { reason: "runaway agent" });
      expect(dataOf(stop)).toMatchObject({ locked: true, reason: "runaway agent" });
      for (const [name, args] of [
        ["everything__echo", { message: "x" }],
        ["memory__read_graph", {}],
        ["enable_toolset", { name: "filesystem" }],
      ] as const) {
        const refused = await s.call(name, args);
        expect(refused.isError, name).toBe(true);
        expect(codeOf(refused), name).toBe("guard_locked");
        expect(textOf(refused)).toBe("guard_locked: runaway agent");
      }
      const diagnosis = dataOf(await s.call("flow_diagnose"));
      expect(diagnosis.guard).toMatchObject({ locked: true, lockReason: "runaway agent" });
      const perTool = (diagnosis.metrics as { perTool: Record<string, { errorCount: number }> }).perTool;
      expect(perTool.everything__echo?.errorCount).toBeGreaterThanOrEqual(1);

      const unlock = await s.call("flow_emergency_unlock");
      expect(codeOf(unlock)).toBe("confirmation_required");
      const token = (dataOf(unlock).error as { confirmationToken: string }).confirmationToken;
      const unlocked = await s.call("flow_emergency_unlock", { confirmation_token: token });
      expect(dataOf(unlocked)).toMatchObject({ locked: false, wasLocked: true });
      expect(textOf(await s.call("everything__echo", { message: "again" }))).toBe("Echo: again");
    });
  });

  it("serves a static client (cursor) the same tools and answers enable_toolset with guidance", async () => {
    const s = await serve("cursor");
    try {
      const names = await s.names();
      const result = await s.call("enable_toolset", { name: "filesystem" });
      expect(dataOf(result).status).toBe("static_client");
      expect(textOf(result)).toContain("Restart the server with --toolsets everything,memory,filesystem");
      await new Promise((r) => setTimeout(r, 200));
      expect(s.listChanged()).toBe(0);
      expect(await s.names()).toEqual(names);
      expect(s.client.getInstructions()).toContain("need a server restart with a different --toolsets flag");
    } finally {
      await s.close();
    }
  });

  it("lets FLOW_CLIENT_MODE make a static client dynamic", async () => {
    const s = await serve("cursor", [], { FLOW_CLIENT_MODE: "dynamic" });
    try {
      expect(s.stderr()).toContain("mode dynamic (env)");
      expect(dataOf(await s.call("enable_toolset", { name: "filesystem" })).status).toBe("enabled");
      expect(await until(() => s.listChanged() > 0)).toBe(true);
    } finally {
      await s.close();
    }
  });

  it("serves an annotation-aware anthropic client rich descriptions and destructive tools without tokens", async () => {
    const s = await serve("claude-code", ["--toolsets", "everything,filesystem"]);
    try {
      const { tools } = await s.client.listTools();
      const write = tools.find((t) => t.name === "filesystem__write_file");
      expect(write?.description).toContain('Tool "write_file" of MCP server "filesystem"');
      expect(Object.keys((write?.inputSchema.properties as object) ?? {})).not.toContain("confirmation_token");
      const minimal = await serve("windsurf", ["--toolsets", "everything,filesystem"]);
      const short = (await minimal.client.listTools()).tools.find((t) => t.name === "filesystem__write_file");
      await minimal.close();
      expect((short?.description ?? "").length).toBeLessThan((write?.description ?? "").length);
      const file = join(fx.files, "aware.txt");
      const ok = await s.call("filesystem__write_file", { path: file, content: "no token needed" });
      expect(ok.isError).toBeFalsy();
      expect(readFileSync(file, "utf8")).toBe("no token needed");
      expect(s.client.getInstructions()).toContain("Use tool search (or search_tools)");
    } finally {
      await s.close();
    }
  });

  it("--toolsets chooses what loads besides core and discovery", async () => {
    const s = await serve("cline", ["--toolsets", "memory"]);
    try {
      const names = await s.names();
      expect(names.filter((n) => n.includes("__")).every((n) => n.startsWith("memory__"))).toBe(true);
      expect(names).toContain("flow_diagnose");
      expect(names).toContain("enable_toolset");
    } finally {
      await s.close();
    }
  });

  it("toolset-config.json gives each client its toolsets", async () => {
    writeFileSync(
      join(fx.dir, "toolset-config.json"),
      JSON.stringify({ defaultToolsets: ["everything"], clientOverrides: { cursor: ["memory", "filesystem"] } }),
    );
    try {
      const cursor = await serve("cursor-vscode");
      const other = await serve("zed");
      const cursorSets = new Set((await cursor.names()).filter((n) => n.includes("__")).map((n) => n.split("__")[0]));
      const otherSets = new Set((await other.names()).filter((n) => n.includes("__")).map((n) => n.split("__")[0]));
      await cursor.close();
      await other.close();
      expect([...cursorSets].sort()).toEqual(["filesystem", "memory"]);
      expect([...otherSets]).toEqual(["everything"]);
    } finally {
      writeFileSync(join(fx.dir, "toolset-config.json"), "{}");
    }
  });

  it("an unknown toolset is a usage error naming the closest one", async () => {
    const result = await runFlow(["serve", "--stdio", "--toolsets", "memroy"], { cwd: fx.dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('flow: --toolsets: unknown toolset "memroy" (did you mean "memory"?)');
  });

  it("a server named like a built-in toolset is a config error", async () => {
    const bad = gatewayFixture({ core: { command: process.execPath, args: ["-e", ""] } });
    try {
      const result = await runFlow(["serve", "--stdio", "--mcp-config", bad.mcpConfig], { cwd: bad.dir });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('MCP server name "core" clash');
    } finally {
      bad.cleanup();
    }
  });
});

describe("flow_diagnose over stdio", () => {
  it("reports a server that is down, and never shows a secret", async () => {
    const secret = "sk-live-5f1e2d3c4b5a69788796a5b4";
    const token = "serve-token-0123456789abcdef";
    const down = gatewayFixture({
      broken: {
        command: process.execPath,
        args: ["-e", "process.stderr.write(process.env.API_KEY); process.exit(4)"],
        env: { API_KEY: secret },
      },
      remote: { type: "http", url: "http://127.0.0.1:9/mcp", headers: { Authorization: `Bearer ${secret}` } },
    });
    try {
      const s = await serveStdioClient([], { cwd: down.dir, clientName: "cline", env: { FLOW_SERVE_TOKEN: token } });
      try {
        const result = await s.call("flow_diagnose");
        expect(result.isError).toBeFalsy();
        const report = dataOf(result) as {
          servers: { server: string; reachable: boolean; error: { code: string } | null }[];
          toolsets: { name: string; unavailable?: unknown }[];
          sessions: { client: string; mode: string }[];
        };
        expect(report.servers.find((x) => x.server === "everything")?.reachable).toBe(true);
        expect(report.servers.find((x) => x.server === "broken")).toMatchObject({
          reachable: false,
          error: { code: expect.any(String) },
        });
        expect(report.servers.find((x) => x.server === "remote")).toMatchObject({ reachable: false });
        expect(report.toolsets.find((t) => t.name === "broken")?.unavailable).toBeDefined();
        expect(report.sessions).toEqual([expect.objectContaining({ client: "cline", mode: "dynamic" })]);
        expect(textOf(result)).toContain("servers reachable (down: broken, remote)");
        const everything = JSON.stringify(result);
        expect(everything).not.toContain(secret);
        expect(everything).not.toContain(token);
        expect(everything).toContain("***");
        expect(s.stderr()).not.toContain(secret);
      } finally {
        await s.close();
      }
    } finally {
      down.cleanup();
    }
  });
});

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { McpServerConfig } from "@meshflow/core";
import { type PrestartedServers, prestartServers } from "@meshflow/mcp/prestart";
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { defaultServerEnvironment } from "../../packages/mcp/src/internal/stdioServerProcess.js";
import { commandServer, isAlive, stdioServer, testPool } from "../helpers/mcpServers.js";

const pool = (configs: McpServerConfig[], stderrDir?: string) => testPool(configs, stderrDir ? { stderrDir } : {});
function prestart(configs: McpServerConfig[]): PrestartedServers {
  const started = prestartServers(configs);
  onTestFinished(() => started.close());
  return started;
}

describe("prestartServers: a stdio server started before its connection", () => {
  it("is taken over by the pool's connection, its first stderr line kept, and outlives the prestart's close", async () => {
    const logs = mkdtempSync(join(tmpdir(), "meshflow-prestart-logs-"));
    const config = stdioServer("everything", "server-everything", ["stdio"]);
    const started = prestart([config]);
    const [pid] = started.pids();
    expect(pid).toBeGreaterThan(0);
    // Let it start and write its banner while nobody reads.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const connected = pool([config], logs);
    const { failures, tools } = await connected.discover();
    expect(failures).toEqual([]);
    expect(tools.some((t) => t.qualifiedName === "everything__echo")).toBe(true);
    expect(connected.status()[0]?.pid).toBe(pid);
    // Closing the prestart leaves a server a connection took alone.
    await started.close();
    expect(isAlive(pid as number)).toBe(true);
    const result = await connected.callTool("everything", "echo", { message: "still here" });
    expect(result.content[0]).toMatchObject({ text: "Echo: still here" });
    await connected.close();
    expect(isAlive(pid as number)).toBe(false);
    expect(readFileSync(join(logs, "everything.log"), "utf8")).toContain("Starting default (STDIO) server");
    rmSync(logs, { recursive: true, force: true });
  });

  it("is not taken by a connection started differently, and its close stops it", async () => {
    const started = prestart([stdioServer("everything", "server-everything", ["stdio"], { MARK: "one" })]);
    const [pid] = started.pids();
    const connected = pool([stdioServer("everything", "server-everything", ["stdio"], { MARK: "two" })]);
    expect((await connected.discover()).failures).toEqual([]);
    const own = connected.status()[0]?.pid;
    expect(own).toBeDefined();
    expect(own).not.toBe(pid);
    await started.close();
    await vi.waitFor(() => expect(isAlive(pid as number)).toBe(false));
    expect(isAlive(own as number)).toBe(true);
  });

  it("two servers of the same command are taken one each", async () => {
    const left = stdioServer("left", "server-everything", ["stdio"]);
    const right = stdioServer("right", "server-everything", ["stdio"]);
    const started = prestart([left, right]);
    const connected = pool([left, right]);
    expect((await connected.discover()).failures).toEqual([]);
    expect(
      connected
        .status()
        .map((s) => s.pid)
        .sort(),
    ).toEqual(started.pids().sort());
  });

  it("a command that cannot start fails the connection as it would without the prestart", async () => {
    const missing = commandServer("missing", "/nonexistent/meshflow-server", []);
    prestart([missing]);
    const { failures } = await pool([missing]).discover();
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ server: "missing", code: "server_unreachable" });
    expect(failures[0]?.message).toContain("ENOENT");
  });

  it("a server that exited before its connection is started again", async () => {
    const config = commandServer("quick", process.execPath, ["-e", "process.exit(0)"]);
    const started = prestart([config]);
    const [pid] = started.pids();
    // A node process starting and exiting: on a loaded machine that outlasts waitFor's default second.
    await vi.waitFor(() => expect(isAlive(pid as number)).toBe(false), { timeout: 20_000 });
    const { failures } = await pool([config]).discover();
    // Started again (and gone again): reported, not hung on the first process.
    expect(failures).toHaveLength(1);
    expect(failures[0]?.server).toBe("quick");
  });

  it("starts only stdio servers", () => {
    const started = prestart([
      {
        name: "web",
        transport: "http",
        url: "http://127.0.0.1:9/mcp",
        urlAsWritten: "http://127.0.0.1:9/mcp",
        headers: {},
      },
    ]);
    expect(started.pids()).toEqual([]);
  });
});

describe("defaultServerEnvironment", () => {
  it("is the MCP SDK's default environment, shell functions left out", () => {
    // biome-ignore lint/suspicious/noUndeclaredEnvVars: set and restored here, read by both functions
    const saved = process.env.TERM;
    try {
      expect(defaultServerEnvironment()).toEqual(getDefaultEnvironment());
      process.env.TERM = "() { echo sneaky; }";
      expect(defaultServerEnvironment()).toEqual(getDefaultEnvironment());
      expect(defaultServerEnvironment().TERM).toBeUndefined();
    } finally {
      // biome-ignore lint/suspicious/noUndeclaredEnvVars: restores the value read above
      if (saved === undefined) delete process.env.TERM;
      else process.env.TERM = saved;
    }
  });
});

import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ToolResult } from "@meshflow/core";
import { createToolChain, type PoolEvent } from "@meshflow/mcp";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  commandServer,
  type HttpEverything,
  isAlive,
  startHttpEverything,
  stdioServer,
  testPool,
} from "../helpers/mcpServers.js";

const text = (result: ToolResult) => result.content.map((b) => (typeof b.text === "string" ? b.text : "")).join("");

/** Pids of the processes with `marker` among their arguments (Linux /proc). */
function processesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").includes(marker)) pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

describe("ClientPool against server-everything over stdio", () => {
  it("discovers its tools with qualified names and annotations, and calls echo through the chain", async () => {
    const logs = mkdtempSync(join(tmpdir(), "meshflow-mcp-logs-"));
    const pool = testPool([stdioServer("everything", "server-everything", ["stdio"])], { stderrDir: logs });
    const { tools, failures } = await pool.discover();
    expect(failures).toEqual([]);
    const echo = tools.find((t) => t.qualifiedName === "everything__echo");
    expect(echo).toMatchObject({
      server: "everything",
      name: "echo",
      description: "Echoes back the input string",
      title: "Echo Tool",
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    });
    expect(echo?.inputSchema).toMatchObject({ type: "object", required: ["message"] });
    const call = createToolChain({ pool });
    expect(text(await call("everything__echo", { message: "hello" }, {}))).toBe("Echo: hello");
    expect(text(await call("everything__get-sum", { a: 2, b: 3 }, {}))).toBe("The sum of 2 and 3 is 5.");
    // The server's stderr went to its log file, not to the terminal.
    await pool.close();
    expect(readFileSync(join(logs, "everything.log"), "utf8")).toContain("Starting default (STDIO) server");
    rmSync(logs, { recursive: true, force: true });
  });

  it("tells the same tool on two servers apart by server", async () => {
    const pool = testPool([
      stdioServer("left", "server-everything", ["stdio"]),
      stdioServer("right", "server-everything", ["stdio"]),
    ]);
    const { tools } = await pool.discover();
    expect(tools.filter((t) => t.name === "echo").map((t) => t.qualifiedName)).toEqual(["left__echo", "right__echo"]);
    const [left, right] = pool.status();
    expect(left?.pid).not.toBe(right?.pid);
  });

  it("after its process is killed mid-call: the call fails with server_crashed, the next call reconnects and succeeds", async () => {
    const events: PoolEvent[] = [];
    const pool = testPool([stdioServer("everything", "server-everything", ["stdio"])], {
      onEvent: (e) => events.push(e),
    });
    const call = createToolChain({ pool });
    expect(text(await call("everything__echo", { message: "before" }, {}))).toBe("Echo: before");
    const pid = pool.status()[0]?.pid;
    expect(pid).toEqual(expect.any(Number));
    const inFlight = call("everything__trigger-long-running-operation", { duration: 30, steps: 3 }, {});
    process.kill(pid as number, "SIGKILL");
    const crashed = await inFlight;
    expect(crashed).toMatchObject({ isError: true, code: "server_crashed" });
    expect(text(crashed)).toContain('server "everything", tool "trigger-long-running-operation"');
    expect(events.map((e) => e.type)).toContain("server.crashed");

    expect(text(await call("everything__echo", { message: "after" }, {}))).toBe("Echo: after");
    const status = pool.status()[0];
    expect(status).toMatchObject({ state: "connected", crashes: 1, connects: 2 });
    expect(status?.pid).not.toBe(pid);
  });

  it("close() shuts every server process down", async () => {
    const pool = testPool([
      stdioServer("a", "server-everything", ["stdio"]),
      stdioServer("b", "server-memory", [], { MEMORY_FILE_PATH: join(tmpdir(), "meshflow-close-memory.jsonl") }),
    ]);
    await pool.discover();
    const pids = pool.status().map((s) => s.pid as number);
    expect(pids.every((pid) => isAlive(pid))).toBe(true);
    await pool.close();
    expect(pids.filter((pid) => isAlive(pid))).toEqual([]);
  });

  it("reports a server that cannot start, with its command and stderr, and still lists the others", async () => {
    const pool = testPool([
      commandServer("broken", process.execPath, ["-e", "console.error('missing API key'); process.exit(2)"]),
      commandServer("absent", "/nonexistent/mcp-server", ["--stdio"]),
      stdioServer("everything", "server-everything", ["stdio"]),
    ]);
    const { tools, failures } = await pool.discover();
    expect(tools.some((t) => t.server === "everything")).toBe(true);
    expect(failures).toEqual([
      expect.objectContaining({
        server: "broken",
        code: "server_unreachable",
        endpoint: `${process.execPath} -e console.error('missing API key'); process.exit(2)`,
        stderrTail: "missing API key",
      }),
      expect.objectContaining({
        server: "absent",
        code: "server_unreachable",
        endpoint: "/nonexistent/mcp-server --stdio",
      }),
    ]);
    expect(failures[1]?.message).toContain("ENOENT");
    const call = createToolChain({ pool });
    expect(await call("broken__anything", {}, {})).toMatchObject({ isError: true, code: "server_unreachable" });
  });

  it("gives up on a server that never answers initialize (connect_timeout) and leaves no process behind", async () => {
    // The server is found by a marker on its command line, not by a pid it would write: on a loaded
    // machine the connect timeout can end it before node has run a line of it.
    const marker = `meshflow-silent-${process.pid}-${Date.now()}`;
    const pool = testPool([commandServer("silent", process.execPath, ["-e", "setInterval(() => {}, 1000)", marker])], {
      connectTimeoutMs: 300,
    });
    const { failures } = await pool.discover();
    expect(failures[0]).toMatchObject({ server: "silent", code: "connect_timeout" });
    expect(failures[0]?.message).toContain("did not answer initialize within 300 ms");
    // It ignores stdin EOF, so only our kill ends it (a killed process not yet reaped has no command line).
    await vi.waitFor(() => expect(processesWith(marker)).toEqual([]), { timeout: 1_500 });
  });
});

describe("ClientPool against server-everything over Streamable HTTP", () => {
  let http: HttpEverything;
  beforeAll(async () => {
    http = await startHttpEverything();
  });
  afterAll(async () => {
    await http?.kill();
  });

  it("discovers and calls tools on a loopback port", async () => {
    const pool = testPool([http.config("remote")]);
    const tools = await pool.listTools("remote");
    expect(tools.map((t) => t.qualifiedName)).toContain("remote__echo");
    const call = createToolChain({ pool });
    expect(text(await call("remote__echo", { message: "over http" }, {}))).toBe("Echo: over http");
    expect(await call("remote__get-sum", { a: "2" }, {})).toMatchObject({ code: "invalid_arguments" });
    expect(pool.status()[0]).toMatchObject({ transport: "http", state: "connected", endpoint: http.url });
  });

  it("answers server_unreachable while the server is down, and reconnects once it is back", async () => {
    const pool = testPool([http.config("remote")]);
    const call = createToolChain({ pool });
    expect(text(await call("remote__echo", { message: "1" }, {}))).toBe("Echo: 1");
    await http.kill();
    expect(await call("remote__echo", { message: "2" }, {})).toMatchObject({
      isError: true,
      code: "server_unreachable",
    });
    await http.restart();
    expect(text(await call("remote__echo", { message: "3" }, {}))).toBe("Echo: 3");
  });
});

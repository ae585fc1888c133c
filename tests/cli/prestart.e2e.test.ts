import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { flowWorkspace, parseEvents, serverEntry, testStories } from "../helpers/flowWorkspace.js";
import { isAlive } from "../helpers/mcpServers.js";

/**
 * A workspace whose only server is server-everything started through a launcher that appends its pid
 * to `starts.txt` first: how many processes `flow` started for it, and which.
 */
function countedWorkspace() {
  const ws = flowWorkspace();
  const launcher = join(ws.dir, "count-starts.mjs");
  const starts = join(ws.dir, "starts.txt");
  writeFileSync(
    launcher,
    [
      'import { appendFileSync } from "node:fs";',
      'import { pathToFileURL } from "node:url";',
      "const [, , file, entry] = process.argv;",
      "process.argv.splice(2, 2);",
      "appendFileSync(file, `${process.pid}\\n`);",
      "await import(pathToFileURL(entry).href);",
    ].join("\n"),
  );
  const config = {
    mcpServers: {
      counted: {
        command: process.execPath,
        args: [launcher, starts, serverEntry("@modelcontextprotocol/server-everything")],
      },
    },
  };
  writeFileSync(join(ws.dir, ".mcp.json"), JSON.stringify(config, null, 2));
  const pids = () => (existsSync(starts) ? readFileSync(starts, "utf8").split("\n").filter(Boolean).map(Number) : []);
  return { ws, pids };
}

describe("flow run starts its PRD's servers before the rest of it loads", () => {
  it("starts each server once: the run's connection takes over the process started first", async () => {
    const { ws, pids } = countedWorkspace();
    ws.writePrd([
      { mcpTools: { step1: ["counted"] }, calls: { step1: [{ tool: "counted__echo", args: { message: "a" } }] } },
      { mcpTools: { step1: ["counted"] }, calls: { step1: [{ tool: "counted__echo", args: { message: "b" } }] } },
    ]);
    const result = await ws.flow(["run", "prd.json", "--json"]);
    expect(result.code, result.stderr).toBe(0);
    const results = parseEvents(result.stdout).filter((e) => e.type === "tool.result");
    expect(results.map((e) => e.type === "tool.result" && e.isError)).toEqual([false, false]);
    expect(pids()).toHaveLength(1);
    expect(isAlive(pids()[0] as number)).toBe(false);
  });

  it("stops the server it started when the run ends before using it (an invalid PRD)", async () => {
    const { ws, pids } = countedWorkspace();
    ws.writePrd([{ mcpTools: { step1: ["counted"] }, calls: { step1: "not a list" } }]);
    const result = await ws.flow(["run", "prd.json"]);
    expect(result.code).toBe(1);
    expect(result.stderr + result.stdout).toContain("$.userStories[0].calls.step1");
    const started = pids();
    expect(started.length).toBeGreaterThanOrEqual(1);
    for (const pid of started) expect(isAlive(pid)).toBe(false);
  });

  it("starts a folder's servers once for all of its PRDs", async () => {
    const { ws, pids } = countedWorkspace();
    const folder = join(ws.dir, "prds");
    mkdirSync(folder);
    for (const name of ["prd-a.json", "prd-b.json"]) {
      const userStories = testStories([
        {
          mcpTools: { step1: ["counted"] },
          calls: { step1: [{ tool: "counted__echo", args: { message: name } }] },
        },
      ]);
      writeFileSync(join(folder, name), `${JSON.stringify({ project: name, userStories }, null, 2)}\n`);
    }
    const result = await ws.flow(["run", "prds", "--json"]);
    expect(result.code, result.stderr).toBe(0);
    expect(parseEvents(result.stdout).filter((e) => e.type === "tool.result")).toHaveLength(2);
    expect(pids()).toHaveLength(1);
  });

  it("starts nothing for a story that already passed", async () => {
    const { ws, pids } = countedWorkspace();
    ws.writePrd([{ mcpTools: { step1: ["counted"] }, passes: true }]);
    const result = await ws.flow(["run", "prd.json"]);
    expect(result.code, result.stderr).toBe(0);
    expect(pids()).toEqual([]);
  });
});

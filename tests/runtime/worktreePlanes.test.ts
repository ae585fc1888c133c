import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadMcpConfig, type ToolResult } from "@meshflow/core";
import { Guard, MetricsCollector } from "@meshflow/mcp";
import { createToolPlane, type ToolPlane, WorktreePlanes } from "@meshflow/runtime/host";
import { afterEach, describe, expect, it } from "vitest";
import { serverEntry } from "../helpers/flowWorkspace.js";

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const done of cleanup.splice(0).reverse()) await done();
});

/** A folder with two worktree-like folders and an MCP config whose filesystem server is rooted at `${FLOW_WORKSPACE}`. */
function project() {
  const dir = mkdtempSync(join(tmpdir(), "meshflow-worktree-planes-"));
  const trees = ["a", "b"].map((name) => join(dir, name));
  for (const tree of trees) mkdirSync(tree);
  const file = join(dir, ".mcp.json");
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: {
        filesystem: {
          command: process.execPath,
          args: [serverEntry("@modelcontextprotocol/server-filesystem"), `\${FLOW_WORKSPACE:-${dir}}`],
        },
      },
    }),
  );
  cleanup.push(async () => rmSync(dir, { recursive: true, force: true }));
  return { dir, trees, mcpConfig: loadMcpConfig({ file, env: {} }) };
}

let seq = 0;
function write(planes: WorktreePlanes, tree: string, name: string): Promise<ToolResult> {
  const executor = planes.executorFor(tree);
  if (!executor) throw new Error(`no executor for ${tree}`);
  const key = `run/US-1/step1/${++seq}`;
  const args = { path: join(tree, name), content: `${name}\n` };
  return executor.submit(
    { key, tool: "filesystem__write_file", args, runId: "run", storyId: "US-1", step: 1 },
    // As a run's step calls: it confirms destructive calls itself (annotation-aware).
    { annotationAware: true },
  );
}

describe("WorktreePlanes", () => {
  it("starts a server per worktree whose calls pass the run's one guard and metrics", async () => {
    const { trees, mcpConfig } = project();
    const guard = new Guard();
    const metrics = new MetricsCollector();
    const plane: ToolPlane = await createToolPlane({ mcpConfig, guard, metrics });
    const planes = new WorktreePlanes({ mcpConfig, plane, env: {} });
    cleanup.push(async () => {
      await planes.close();
      await plane.close();
    });
    const [a = "", b = ""] = trees;

    const first = await write(planes, a, "one.txt");
    expect(first.isError, JSON.stringify(first)).not.toBe(true);
    expect((await write(planes, b, "two.txt")).isError).not.toBe(true);
    // Each worktree's server is rooted in its own folder.
    expect(readFileSync(join(a, "one.txt"), "utf8")).toBe("one.txt\n");
    expect((await write(planes, a, "../b/escape.txt")).isError).toBe(true);
    expect(metrics.summary().totalToolCalls).toBe(3);
    expect(guard.state().callsInLastMinute).toBe(3);

    // The run's emergency stop refuses every worktree's calls.
    guard.emergencyStop("stopped by the operator");
    for (const tree of [a, b]) {
      const refused = await write(planes, tree, "late.txt");
      expect(refused.code).toBe("guard_locked");
    }
    guard.unlock();
    expect((await write(planes, b, "after.txt")).isError).not.toBe(true);
  });

  it("refuses a run plane that cannot share its middleware with the worktrees' servers", async () => {
    const { mcpConfig } = project();
    const plane: ToolPlane = await createToolPlane({ mcpConfig });
    cleanup.push(() => plane.close());
    const { sibling: _sibling, ...bare } = plane;
    expect(() => new WorktreePlanes({ mcpConfig, plane: bare, env: {} })).toThrow(/escape the run's guard/);
  });
});

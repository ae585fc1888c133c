import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { npmServerEntry, writeMcpConfig } from "../helpers/mcpServers.js";
import { runFlow } from "../helpers/runFlow.js";

let dir: string;
let prd: string;
let env: Record<string, string>;

const story = (id: string, steps: number[], mcpTools: Record<string, string[]>, passes = false) => ({
  id,
  title: `Story ${id}`,
  description: "As a user …",
  acceptanceCriteria: ["works"],
  mavenSteps: steps,
  mcpTools,
  priority: 1,
  passes,
  notes: "",
});

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "meshflow-cli-plan-discover-"));
  env = { FLOW_LOG_DIR: join(dir, "logs") };
  writeMcpConfig(dir, {
    everything: npmServerEntry("server-everything", ["stdio"]),
    memory: npmServerEntry("server-memory", [], { MEMORY_FILE_PATH: join(dir, "memory.jsonl") }),
    broken: { command: process.execPath, args: ["-e", "console.error('no license'); process.exit(1)"] },
  });
  prd = join(dir, "prd.json");
  writeFileSync(
    prd,
    JSON.stringify({
      project: "Discover",
      branchName: "flow/discover",
      userStories: [
        story("US-001", [5, 7], { step5: ["everything"], step7: ["everything", "memory"] }),
        story("US-002", [1], { step1: ["broken"] }, true),
      ],
    }),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("flow plan --discover", () => {
  it("shows each step's repertoire (after skills), its size and what was left out; skipped stories are not discovered", async () => {
    const result = await runFlow(["plan", prd, "--discover", "--json"], { env, cwd: dir });
    expect(result.code).toBe(0);
    const plan = JSON.parse(result.stdout);
    const [step5, step7] = plan.stories.find((s: { id: string }) => s.id === "US-001").steps;
    // Step 5 goes to the built-in quality-agent, whose skills keep only part of server-everything's tools.
    expect(step5.tools.specialist).toBe("quality-agent");
    expect(step5.tools.names).toContain("everything__echo");
    expect(step5.tools.count).toBe(step5.tools.names.length);
    expect(step5.tools.leftOut.length).toBeGreaterThan(0);
    expect(step5.tools.count + step5.tools.leftOut.length).toBe(step5.tools.offered);
    expect(step5.tools.leftOut.filter((n: string) => step5.tools.names.includes(n))).toEqual([]);
    // The development-agent gets every tool of its step's servers.
    expect(step7.tools.specialist).toBe("development-agent");
    expect(step7.tools.leftOut).toEqual([]);
    expect(step7.tools.count).toBe(step5.tools.offered + 9);
    expect(step7.tools.names).toContain("memory__read_graph");
    expect(step5.tools.schemaBytes).toBeGreaterThan(1000);
    expect(step7.tools.schemaBytes).toBeGreaterThan(step5.tools.schemaBytes);
    expect(plan.stories.find((s: { id: string }) => s.id === "US-002").steps[0].tools).toBeNull();
    expect(plan.failures).toEqual([]);

    // The same repertoire as the run would give: `flow run --dry-run` sizes it the same.
    const dry = await runFlow(["run", prd, "--dry-run", "--json", "--story", "US-001"], { env, cwd: dir });
    const drySteps = JSON.parse(dry.stdout).stories[0].steps;
    expect(drySteps.map((s: { tools: number }) => s.tools)).toEqual([step5.tools.count, step7.tools.count]);

    const text = await runFlow(["plan", prd, "--discover"], { env, cwd: dir });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      `        ${step5.tools.count} tools in its repertoire, ${step5.tools.schemaBytes.toLocaleString("en-US")} bytes of tool schemas; ${step5.tools.leftOut.length} of the servers' ${step5.tools.offered} tools left out by its skills and enrichers\n`,
    );
    expect(text.stdout).toContain(`        ${step5.tools.names.join(", ")}\n`);
    expect(text.stdout).toContain(`        ${step7.tools.count} tools in its repertoire, `);
  });

  it("reports a step's server that fails, at its JSON path; exit 3", async () => {
    const withBroken = join(dir, "prd-broken.json");
    writeFileSync(
      withBroken,
      JSON.stringify({
        project: "B",
        branchName: "b",
        userStories: [story("US-9", [1], { step1: ["memory", "broken"] })],
      }),
    );
    const result = await runFlow(["plan", withBroken, "--discover"], { env, cwd: dir });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      `${withBroken}: $.userStories[0].mcpTools.step1[1]: MCP server "broken" failed (server_unreachable):`,
    );
    expect(result.stderr).toContain("no license");
    expect(result.stdout).toContain("        9 tools in its repertoire,");
  });
});

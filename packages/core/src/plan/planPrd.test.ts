import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadMcpConfig } from "../mcpConfig/loadMcpConfig.js";
import { validatePrd } from "../prd/validatePrd.js";
import { loadRoutingTable } from "../routing/RoutingTable.js";
import { planPrd } from "./planPrd.js";

const routing = loadRoutingTable();
const dir = mkdtempSync(join(tmpdir(), "meshflow-plan-"));
writeFileSync(
  join(dir, ".mcp.json"),
  JSON.stringify({
    mcpServers: {
      filesystem: { command: "node" },
      memory: { command: "node" },
      github: { url: "https://x/mcp", headers: { Authorization: "Bearer ${GH_TOKEN}" } },
      spare: { url: "https://y/mcp", headers: { Authorization: "Bearer ${SPARE_TOKEN}" } },
    },
  }),
);
const mcpConfig = loadMcpConfig({ env: {}, cwd: dir });

function plan(stories: Record<string, unknown>[]) {
  const base = { title: "t", passes: false };
  const { prd, problems } = validatePrd(
    { project: "P", userStories: stories.map((s) => ({ ...base, ...s })) },
    { file: "p.json", routing },
  );
  expect(problems).toEqual([]);
  if (!prd) throw new Error("invalid");
  return planPrd(prd, { file: "p.json", routing, mcpConfig });
}

describe("planPrd", () => {
  it("orders stories by priority then file order, and routes every step", () => {
    const result = plan([
      { id: "B", priority: 2, mavenSteps: [5] },
      {
        id: "A",
        priority: 1,
        mavenSteps: [1, 8],
        mcpTools: { step1: ["filesystem"], step8: ["filesystem", "memory"] },
      },
      { id: "C", priority: 2, mavenSteps: [11], passes: true },
    ]);
    expect(result.stories.map((s) => [s.id, s.skipped])).toEqual([
      ["A", false],
      ["B", false],
      ["C", true],
    ]);
    expect(result.stories[0]?.steps).toEqual([
      {
        step: 1,
        purpose: "Foundation: create or import the code the story needs, in the project's existing structure.",
        specialist: "development-agent",
        servers: ["filesystem"],
      },
      {
        step: 8,
        purpose: "Authentication: implement or review sign-in, sessions and access control.",
        specialist: "security-agent",
        servers: ["filesystem", "memory"],
      },
    ]);
    // Unusable servers no running story needs are warnings, not errors.
    expect(result.problems.map((p) => [p.severity, p.path])).toEqual([
      ["warning", "$.mcpServers.github.headers.Authorization"],
      ["warning", "$.mcpServers.spare.headers.Authorization"],
    ]);
  });

  it("reports an unknown server with a suggestion and the configured names", () => {
    const result = plan([{ id: "A", priority: 1, mavenSteps: [7], mcpTools: { step7: ["memroy"] } }]);
    expect(result.problems.filter((p) => p.severity === "error")).toEqual([
      {
        file: "p.json",
        path: "$.userStories[0].mcpTools.step7[0]",
        message: `unknown MCP server "memroy" (did you mean "memory"?) in .mcp.json; configured: filesystem, memory, github, spare`,
        severity: "error",
      },
    ]);
  });

  it("makes a misconfigured server an error only for stories that will run", () => {
    const used = plan([{ id: "A", priority: 1, mavenSteps: [1], mcpTools: { step1: ["github"] } }]);
    expect(
      used.problems.filter((p) => p.severity === "error").map((p) => `${p.file}: ${p.path}: ${p.message}`),
    ).toEqual([
      ".mcp.json: $.mcpServers.github.headers.Authorization: environment variable GH_TOKEN is not set (write ${GH_TOKEN:-default} to give a default)",
      'p.json: $.userStories[0].mcpTools.step1[0]: MCP server "github" is misconfigured in .mcp.json',
    ]);
    const skipped = plan([{ id: "A", priority: 1, mavenSteps: [1], mcpTools: { step1: ["github"] }, passes: true }]);
    expect(skipped.problems.every((p) => p.severity === "warning")).toBe(true);
  });

  it("reports unroutable steps when an override removed them", () => {
    const partial = { steps: new Map([[1, "development-agent"]]), sources: ["default", "r.yaml"] };
    const { prd } = validatePrd(
      { project: "P", userStories: [{ id: "A", title: "t", priority: 1, passes: false, mavenSteps: [1] }] },
      { file: "p.json", routing: partial },
    );
    if (!prd) throw new Error("invalid");
    const noRoute = { steps: new Map<number, string>(), sources: ["none"] };
    const result = planPrd(prd, { file: "p.json", routing: noRoute, mcpConfig });
    expect(result.stories[0]?.steps[0]?.specialist).toBeNull();
    expect(result.problems.filter((p) => p.severity === "error").map((p) => p.message)).toEqual([
      "step 1 routes to no specialist",
    ]);
  });
});

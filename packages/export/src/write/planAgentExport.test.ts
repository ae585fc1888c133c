import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UniversalTool } from "@meshflow/core";
import { beforeAll, describe, expect, it } from "vitest";
import type { ToolUniverse } from "../model/baseToolMap.js";
import { fixtureUniverse, specialist } from "../test-support/exportFixture.js";
import { type AgentExportInput, planAgentExport } from "./planAgentExport.js";
import { outdatedFiles, writeExportPlan } from "./writeExportPlan.js";

let universe: ToolUniverse;
beforeAll(async () => {
  universe = await fixtureUniverse();
});

const agents = [
  specialist("development-agent", { harnessTools: [UniversalTool.read, UniversalTool.edit] }),
  specialist("security-agent", { readOnly: true }),
];

function input(outDir: string, extra: Partial<AgentExportInput> = {}): AgentExportInput {
  return { harness: "claude-code", format: "md", specialists: agents, universe, outDir, prune: true, ...extra };
}

const tempDir = () => mkdtempSync(join(tmpdir(), "meshflow-export-"));

describe("planAgentExport + writeExportPlan", () => {
  it("writes each agent where the harness reads it, and a second plan finds everything up to date", () => {
    const out = tempDir();
    const plan = planAgentExport(input(out));
    expect(plan.files.map((f) => [f.file, f.status])).toEqual([
      [".claude/agents/development-agent.md", "create"],
      [".claude/agents/security-agent.md", "create"],
    ]);
    expect(writeExportPlan(plan)).toHaveLength(2);
    expect(readdirSync(join(out, ".claude/agents"))).toEqual(["development-agent.md", "security-agent.md"]);
    const again = planAgentExport(input(out));
    expect(outdatedFiles(again)).toEqual([]);
    expect(writeExportPlan(again)).toEqual([]);
  });

  it("a changed specialist makes its file outdated; planning writes nothing", () => {
    const out = tempDir();
    writeExportPlan(planAgentExport(input(out)));
    const before = readFileSync(join(out, ".claude/agents/security-agent.md"), "utf8");
    const changed = [agents[0], specialist("security-agent", { readOnly: true, description: "Audits, read-only." })];
    const plan = planAgentExport(input(out, { specialists: changed as typeof agents }));
    expect(outdatedFiles(plan).map((f) => [f.file, f.status])).toEqual([
      [".claude/agents/security-agent.md", "update"],
    ]);
    expect(readFileSync(join(out, ".claude/agents/security-agent.md"), "utf8")).toBe(before);
  });

  it("a full export removes the generated file of a specialist that is gone, never a hand-written one", () => {
    const out = tempDir();
    writeExportPlan(planAgentExport(input(out)));
    writeFileSync(join(out, ".claude/agents/mine.md"), "---\nname: mine\ndescription: hand-written\n---\nHello\n");
    const partial = planAgentExport(input(out, { specialists: agents.slice(0, 1), prune: false }));
    expect(outdatedFiles(partial)).toEqual([]);
    const full = planAgentExport(input(out, { specialists: agents.slice(0, 1) }));
    expect(outdatedFiles(full).map((f) => [f.file, f.status, f.agents])).toEqual([
      [".claude/agents/security-agent.md", "remove", ["security-agent"]],
    ]);
    writeExportPlan(full);
    expect(readdirSync(join(out, ".claude/agents")).sort()).toEqual(["development-agent.md", "mine.md"]);
  });

  it("a partial JSON export keeps the other agents' entries; a full one drops them", () => {
    const out = tempDir();
    writeExportPlan(planAgentExport(input(out, { format: "json" })));
    const file = join(out, ".claude/agents.json");
    const changed = specialist("security-agent", { readOnly: true, description: "changed" });
    writeExportPlan(planAgentExport(input(out, { format: "json", specialists: [changed], prune: false })));
    const partial = JSON.parse(readFileSync(file, "utf8"));
    expect(Object.keys(partial)).toEqual(["development-agent", "security-agent"]);
    expect(partial["security-agent"].description).toBe("changed");
    writeExportPlan(planAgentExport(input(out, { format: "json", specialists: [changed] })));
    expect(Object.keys(JSON.parse(readFileSync(file, "utf8")))).toEqual(["security-agent"]);
  });

  it("edits opencode.json in place: other keys, other agents and comments stay", () => {
    const out = tempDir();
    const existing = `{
  // the team's settings
  "$schema": "https://opencode.ai/config.json",
  "model": "anthropic/claude-sonnet-4-5",
  "agent": {
    "build": { "mode": "primary" },
    "security-agent": { "description": "old" }
  }
}
`;
    writeFileSync(join(out, "opencode.jsonc"), existing);
    const plan = planAgentExport(input(out, { harness: "opencode", format: "json" }));
    expect(plan.files.map((f) => [f.file, f.status])).toEqual([["opencode.jsonc", "update"]]);
    writeExportPlan(plan);
    const text = readFileSync(join(out, "opencode.jsonc"), "utf8");
    expect(text).toContain("// the team's settings");
    expect(text).toContain('"model": "anthropic/claude-sonnet-4-5"');
    expect(text).toContain('"build": { "mode": "primary" }');
    expect(text).not.toContain('"old"');
    expect(text).toContain('"filesystem_write_file": "ask"');
    expect(existsSync(join(out, "opencode.json"))).toBe(false);
    expect(outdatedFiles(planAgentExport(input(out, { harness: "opencode", format: "json" })))).toEqual([]);
  });

  it("refuses to merge into a document that is not valid, naming the file", () => {
    const out = tempDir();
    mkdirSync(join(out, ".github"));
    writeFileSync(join(out, ".github/agents.json"), "{ not json");
    expect(() => planAgentExport(input(out, { harness: "copilot", format: "json", prune: false }))).toThrow(
      /\.github\/agents\.json: cannot merge the agents into it/,
    );
  });

  it("refuses extra keys that would override what the writer sets", () => {
    expect(() => planAgentExport(input(tempDir(), { extras: () => ({ tools: "Bash" }) }))).toThrow(
      /claude-code sets "tools" itself/,
    );
  });

  it("leaves no temp files behind", () => {
    const out = tempDir();
    writeExportPlan(planAgentExport(input(out, { harness: "copilot" })));
    expect(readdirSync(join(out, ".github/agents")).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });
});

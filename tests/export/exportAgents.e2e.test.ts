import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import matter from "gray-matter";
import { beforeEach, describe, expect, it } from "vitest";
import { npmServerEntry, writeMcpConfig } from "../helpers/mcpServers.js";
import { ROOT, runFlow } from "../helpers/runFlow.js";

// A project folder per test: the fixture specialists (copied, so a test can change one), the real
// filesystem and memory servers, the shipped skills.
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "meshflow-export-e2e-"));
  cpSync(join(ROOT, "tests/fixtures/agents"), join(dir, "agents"), { recursive: true });
  // Developer documentation (never exported) and the user-facing instructions a model gets (exported).
  writeFileSync(join(dir, "agents/security-agent/README.md"), "# Security agent\n\nTests: agent.test.ts.\n");
  writeFileSync(join(dir, "agents/security-agent/instructions.md"), "Scan the workspace for secrets.\n");
  writeFileSync(join(dir, "agents/refactor-agent/README.md"), "# Refactor agent\n\nTests: agent.test.ts.\n");
  writeMcpConfig(dir, {
    filesystem: npmServerEntry("server-filesystem", [dir]),
    memory: npmServerEntry("server-memory", [], { MEMORY_FILE_PATH: join(dir, "memory.jsonl") }),
  });
});

// The project's own specialists only (without --agents the built-in ones would be added beside them).
const flow = (args: string[]) =>
  runFlow([...args, "--skills", join(ROOT, "skills"), "--agents", join(dir, "agents")], { cwd: dir });
const read = (file: string) => readFileSync(join(dir, file), "utf8");

describe("flow export agents", () => {
  it("writes one Claude Code subagent per specialist; --check right after passes", async () => {
    const result = await flow(["export", "agents", "--harness", "claude-code"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(readdirSync(join(dir, ".claude/agents"))).toEqual([
      "development-agent.md",
      "quality-agent.md",
      "refactor-agent.md",
      "security-agent.md",
    ]);
    const security = matter(read(".claude/agents/security-agent.md"));
    expect(security.data.name).toBe("security-agent");
    expect(security.content.trim()).toBe("Scan the workspace for secrets.");
    // Without instructions.md or an `instructions` field, the description: never the README.
    expect(matter(read(".claude/agents/refactor-agent.md")).content).not.toContain("Tests:");
    // read-only and the security-audit skill: the filesystem's read tools, no write tool, no memory tool
    const tools = String(security.data.tools).split(", ");
    expect(tools).toContain("mcp__filesystem__read_text_file");
    expect(tools.some((t) => t.includes("write") || t.includes("memory"))).toBe(false);
    expect(String(matter(read(".claude/agents/development-agent.md")).data.tools)).toContain(
      "mcp__memory__create_entities",
    );
    const check = await flow(["export", "agents", "--harness", "claude-code", "--check"]);
    expect(check.code).toBe(0);
    expect(check.stdout).toContain("up to date: 4 files for claude-code (md)");
  });

  it("--check fails after a specialist changes, naming the file, and writes nothing", async () => {
    expect((await flow(["export", "agents", "--harness", "copilot"])).code).toBe(0);
    const before = read(".github/agents/security-agent.agent.md");
    const agent = join(dir, "agents/security-agent/agent.ts");
    writeFileSync(agent, readFileSync(agent, "utf8").replace("(fixture); read-only.", "(fixture), audited."));
    const check = await flow(["export", "agents", "--harness", "copilot", "--check"]);
    expect(check.code).toBe(1);
    expect(check.stderr).toContain("1 file differ");
    expect(check.stderr).toContain("update    .github/agents/security-agent.agent.md");
    expect(read(".github/agents/security-agent.agent.md")).toBe(before);
    expect((await flow(["export", "agents", "--harness", "copilot"])).code).toBe(0);
    expect(matter(read(".github/agents/security-agent.agent.md")).data.description).toBe(
      "Runs the story's scripted calls (fixture), audited.",
    );
    expect((await flow(["export", "agents", "--harness", "copilot", "--check"])).code).toBe(0);
  });

  it("--check fails when a file is missing; --json reports statuses and tool names", async () => {
    const check = await flow(["export", "agents", "--harness", "opencode", "--check", "--json"]);
    expect(check.code).toBe(1);
    const report = JSON.parse(check.stdout);
    expect(report.upToDate).toBe(false);
    expect(report.files.map((f: { status: string }) => f.status)).toEqual(["create", "create", "create", "create"]);
    expect(existsSync(join(dir, ".opencode"))).toBe(false);
    const quality = report.agents.find((a: { name: string }) => a.name === "quality-agent");
    expect(quality.tools).toContain("filesystem_read_text_file");
  });

  it("merges into an existing opencode.json, keeping its other keys", async () => {
    writeFileSync(
      join(dir, "opencode.json"),
      '{\n  "$schema": "https://opencode.ai/config.json",\n  "theme": "dark"\n}\n',
    );
    const result = await flow([
      "export",
      "agents",
      "--harness",
      "opencode",
      "--format",
      "json",
      "--specialist",
      "quality-agent",
    ]);
    expect(result.code).toBe(0);
    const config = JSON.parse(read("opencode.json"));
    expect(config.theme).toBe("dark");
    expect(Object.keys(config.agent)).toEqual(["quality-agent"]);
    expect(config.agent["quality-agent"].permission["*"]).toBe("deny");
  });

  it("--no-mcp and an export config's enrichers shape the map", async () => {
    writeFileSync(
      join(dir, "flow-export.yaml"),
      "harnesses:\n  claude-code:\n    enrichers:\n      - add: [read, grep]\n",
    );
    const result = await flow([
      "export",
      "agents",
      "--harness",
      "claude-code",
      "--no-mcp",
      "--specialist",
      "development-agent",
    ]);
    expect(result.code).toBe(0);
    expect(matter(read(".claude/agents/development-agent.md")).data.tools).toBe("Read, Grep");
  });

  it("refuses an unknown specialist (exit 1) and an unknown harness (exit 2)", async () => {
    const unknown = await flow(["export", "agents", "--harness", "claude-code", "--specialist", "securty-agent"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('unknown specialist "securty-agent" (did you mean "security-agent"?)');
    const harness = await flow(["export", "agents", "--harness", "cursor"]);
    expect(harness.code).toBe(2);
    expect(harness.stderr).toContain("Allowed choices are claude-code, opencode, copilot");
  });

  it("writes nothing when a server does not answer (exit 3)", async () => {
    writeMcpConfig(dir, { filesystem: { command: process.execPath, args: ["-e", "process.exit(7)"] } });
    const result = await flow(["export", "agents", "--harness", "claude-code"]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("nothing exported");
    expect(existsSync(join(dir, ".claude"))).toBe(false);
  });
});

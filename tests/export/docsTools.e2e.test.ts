import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { npmServerEntry, writeMcpConfig } from "../helpers/mcpServers.js";
import { ROOT, runFlow } from "../helpers/runFlow.js";

// The real server-filesystem and server-memory, the shipped skills and the fixture specialists (the
// security agent is read-only: its row differs from a skills-only view).
let dir: string;
const scope = () => ["--skills", join(ROOT, "skills"), "--agents", join(ROOT, "tests/fixtures/agents")];
const flow = (args: string[]) => runFlow([...args, ...scope()], { cwd: dir });

interface ListedTool {
  qualifiedName: string;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "meshflow-docs-e2e-"));
  writeMcpConfig(dir, {
    filesystem: npmServerEntry("server-filesystem", [dir]),
    memory: npmServerEntry("server-memory", [], { MEMORY_FILE_PATH: join(dir, "memory.jsonl") }),
  });
});

// Each test starts several `flow` processes, each with two npm MCP servers: about 3 s apiece on a quiet
// machine, several times that on a loaded one (the suite's default 30 s timed out there).
describe("flow docs tools", { timeout: 120_000 }, () => {
  it("lists every tool of the real filesystem and memory servers, with the coverage of flow tools coverage", async () => {
    const [docs, list, coverage, coverageJson] = await Promise.all([
      flow(["docs", "tools", "--out", "docs/tools.md"]),
      runFlow(["tools", "list", "--json"], { cwd: dir }),
      flow(["tools", "coverage"]),
      flow(["tools", "coverage", "--json"]),
    ]);
    expect(docs.stderr).toBe("");
    expect(docs.code).toBe(0);
    expect(list.code).toBe(0);
    const text = readFileSync(join(dir, "docs/tools.md"), "utf8");
    const tools = (JSON.parse(list.stdout) as ListedTool[]).map((t) => t.qualifiedName);
    expect(tools.filter((t) => t.startsWith("filesystem__")).length).toBeGreaterThanOrEqual(10);
    expect(tools.filter((t) => t.startsWith("memory__")).length).toBeGreaterThanOrEqual(5);
    for (const tool of tools) expect(text).toContain(`\`${tool}\``);
    // The same figure, in the same words, as flow tools coverage.
    const headline = coverage.stdout.split("\n")[0] ?? "";
    expect(headline).toMatch(/^Coverage: \d+ of \d+ tools reachable/);
    expect(text).toContain(`\n${headline}\n`);
    const report = JSON.parse(coverageJson.stdout);
    expect(report.tools).toBe(tools.length);
    for (const s of report.specialists)
      expect(text).toContain(
        `| ${s.name} | ${s.servers.join(", ")} | ${s.skills.join(", ") || "(all tools)"} | ${s.mapped} | ${s.available} | ${s.gap} |`,
      );
    const security = report.specialists.find((s: { name: string }) => s.name === "security-agent");
    expect(security.available).toBeLessThan(security.universe);
    expect(text).toContain("### security-agent");
    expect(text).toContain("Read-only: yes");
  });

  it("--check passes right after writing and fails once the file was edited", async () => {
    expect((await flow(["docs", "tools", "--out", "inventory.md"])).code).toBe(0);
    const check = await flow(["docs", "tools", "--out", "inventory.md", "--check"]);
    expect(check.code).toBe(0);
    expect(check.stdout).toContain("up to date: inventory.md");
    writeFileSync(join(dir, "inventory.md"), `${readFileSync(join(dir, "inventory.md"), "utf8")}\nhand edit\n`);
    const stale = await flow(["docs", "tools", "--out", "inventory.md", "--check"]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain("inventory.md differs from the live inventory");
  });

  it("prints to stdout without --out, and writes nothing when a server fails (exit 3)", async () => {
    const printed = await flow(["docs", "tools"]);
    expect(printed.code).toBe(0);
    expect(printed.stdout.startsWith("# Tool inventory\n")).toBe(true);
    const broken = mkdtempSync(join(tmpdir(), "meshflow-docs-broken-"));
    writeMcpConfig(broken, { filesystem: { command: process.execPath, args: ["-e", "process.exit(7)"] } });
    const failed = await runFlow(["docs", "tools", "--out", "tools.md", ...scope()], { cwd: broken });
    expect(failed.code).toBe(3);
    expect(failed.stderr).toContain("no inventory written");
    expect(existsSync(join(broken, "tools.md"))).toBe(false);
  });
});

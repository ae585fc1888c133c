import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RedisClassificationCache } from "@meshflow/queue";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { realServers } from "../helpers/realServerTools.js";
import { FLOW_BIN, ROOT, runFlow } from "../helpers/runFlow.js";

const SKILLS = join(ROOT, "skills");
let dir: string;

function mcpConfig(servers: Record<string, unknown>): string {
  const file = join(dir, `mcp-${randomUUID()}.json`);
  writeFileSync(file, JSON.stringify({ mcpServers: servers }));
  return file;
}

let config: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "meshflow-tools-e2e-"));
  const real = realServers();
  config = mcpConfig(
    Object.fromEntries(
      Object.entries(real).map(([name, s]) => [name, { command: process.execPath, args: s.args, env: s.env }]),
    ),
  );
  writeFileSync(
    join(dir, "prd.json"),
    JSON.stringify({
      project: "Tools",
      branchName: "flow/tools",
      userStories: [
        {
          id: "US-001",
          title: "Audit",
          description: "As an operator I want an audit",
          acceptanceCriteria: ["No secrets"],
          mavenSteps: [1, 8],
          mcpTools: { step1: ["filesystem"], step8: ["filesystem", "memory"] },
          priority: 1,
          passes: false,
          notes: "",
        },
      ],
    }),
  );
});

const flow = (args: string[]) => runFlow([...args, "--skills", SKILLS], { cwd: dir });

describe("flow tools resolve", () => {
  it("prints the provenance of an alias resolution, exit 0", async () => {
    const result = await flow(["tools", "resolve", "fs_read", "--mcp-config", config]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      "fs_read → filesystem__read_text_file\n  tier:       alias (fs_read → read_text_file in ",
    );
    expect(result.stdout).toContain("repertoire: 36 tools of filesystem, memory, everything (every configured server)");
  });

  it("--json: a prefix strip carries its warning", async () => {
    const result = await flow(["tools", "resolve", "fs_directory_tree", "--mcp-config", config, "--json"]);
    expect(result.code).toBe(0);
    const { resolution } = JSON.parse(result.stdout);
    expect(resolution).toMatchObject({
      input: "fs_directory_tree",
      qualifiedName: "filesystem__directory_tree",
      server: "filesystem",
      tool: "directory_tree",
      tier: "prefix",
      via: 'prefix "fs_"',
      annotations: { readOnlyHint: true },
    });
    expect(resolution.warnings[0]).toContain('add an alias entry "fs_directory_tree: directory_tree"');
  });

  it("an unknown name exits 1 with five candidates: did you mean", async () => {
    const text = await flow(["tools", "resolve", "fs_reed_file", "--mcp-config", config]);
    expect(text.code).toBe(1);
    expect(text.stderr).toMatch(
      /^flow: tool "fs_reed_file" not found among the 36 tools of filesystem, memory, everything/,
    );
    expect(text.stderr).toContain('did you mean "filesystem__read_file"');
    const json = await flow(["tools", "resolve", "fs_reed_file", "--mcp-config", config, "--json"]);
    expect(json.code).toBe(1);
    const { error } = JSON.parse(json.stdout);
    expect(error.code).toBe("tool_not_found");
    expect(error.candidates).toHaveLength(5);
    expect(error.candidates[0]).toBe("filesystem__read_file");
  });

  it("in a PRD step: the routed specialist's alias pack and skills decide", async () => {
    const args = ["--mcp-config", config, "--prd", "prd.json", "--story", "US-001", "--step", "8", "--json"];
    const found = await flow(["tools", "resolve", "security_scan_secrets", ...args]);
    expect(found.code).toBe(0);
    const out = JSON.parse(found.stdout);
    expect(out.resolution).toMatchObject({ qualifiedName: "filesystem__search_files", tier: "alias" });
    expect(out.repertoire).toMatch(
      /^10 tools of filesystem \(US-001 step 8, specialist security-agent with skills security-audit\)$/,
    );
    // the security-audit skill grants no write tool
    const refused = await flow(["tools", "resolve", "write_file", ...args]);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout).error.code).toBe("tool_not_found");
  });

  it("usage errors exit 2: --prd without --story and --step", async () => {
    const result = await flow(["tools", "resolve", "x", "--mcp-config", config, "--prd", "prd.json"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--prd, --story and --step go together");
  });
});

describe("flow tools classify", () => {
  it("classifies by rule, then serves the cache, overrides always shown as such", async () => {
    const cache = join(dir, "classify-cache.json");
    const first = await flow(["tools", "classify", "--mcp-config", config, "--cache", cache, "--json"]);
    expect(first.code).toBe(0);
    const one = JSON.parse(first.stdout);
    expect(one.stats).toEqual({ tools: 36, fromCache: 0, classified: 36, overridden: 2 });
    expect(one.cache).toEqual({ kind: "file", location: cache });
    const byName = new Map(one.tools.map((t: { qualifiedName: string }) => [t.qualifiedName, t]));
    expect(byName.get("filesystem__write_file")).toMatchObject({ capabilities: ["filesystem_write"], source: "rule" });
    expect(byName.get("everything__simulate-research-query")).toMatchObject({
      capabilities: ["diagnostics"],
      source: "override",
    });
    expect(existsSync(cache)).toBe(true);

    const second = await flow(["tools", "classify", "--mcp-config", config, "--cache", cache]);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/memory__read_graph\s+cache\s+memory_read/);
    expect(second.stdout).toContain("36 tools: 0 classified, 36 from the cache, 2 overridden");
  });

  it("keeps classifications in Redis when a URL is configured", async () => {
    const prefix = `meshflow:test:${randomUUID()}:`;
    const env = [
      "--server",
      "memory",
      "--mcp-config",
      config,
      "--redis",
      inject("redisUrl"),
      "--redis-prefix",
      prefix,
      "--json",
    ];
    try {
      const first = JSON.parse((await flow(["tools", "classify", ...env])).stdout);
      expect(first.cache.kind).toBe("redis");
      expect(first.stats).toMatchObject({ tools: 9, classified: 9 });
      const second = JSON.parse((await flow(["tools", "classify", ...env])).stdout);
      expect(second.stats).toMatchObject({ tools: 9, fromCache: 9, classified: 0 });
    } finally {
      const cache = await RedisClassificationCache.connect(inject("redisUrl"), { prefix });
      expect(await cache.clear()).toBe(9);
      await cache.close();
    }
  });

  it("classifies the tools of meshflow's own workspace server (flow workspace-server over stdio)", async () => {
    const workspace = mcpConfig({
      workspace: { command: process.execPath, args: [FLOW_BIN, "workspace-server", "--root", dir, "--allow", "node"] },
    });
    const result = await flow([
      "tools",
      "classify",
      "--mcp-config",
      workspace,
      "--cache",
      join(dir, "ws.json"),
      "--json",
    ]);
    expect(result.code).toBe(0);
    const capabilities = Object.fromEntries(
      JSON.parse(result.stdout).tools.map((t: { tool: string; capabilities: string[] }) => [t.tool, t.capabilities]),
    );
    expect(capabilities).toMatchObject({
      run_command: ["code_execute"],
      git_status: ["vcs_read"],
      git_diff: ["vcs_read"],
      list_files: ["filesystem_read"],
      read_file: ["filesystem_read"],
      search_text: ["filesystem_read"],
    });
  });

  it("an unreachable server exits 3 and names it; the other servers are still classified", async () => {
    const broken = mcpConfig({
      memory: { command: process.execPath, args: realServers().memory.args },
      ghost: { command: join(dir, "no-such-server") },
    });
    const result = await flow(["tools", "classify", "--mcp-config", broken, "--cache", join(dir, "c2.json"), "--json"]);
    expect(result.code).toBe(3);
    const out = JSON.parse(result.stdout);
    expect(out.stats.tools).toBe(9);
    expect(out.failures).toEqual([expect.objectContaining({ server: "ghost", code: "server_unreachable" })]);
  });
});

describe("flow tools coverage", () => {
  it("reports specialists' mapped vs available counts and exits 1 below --min", async () => {
    const result = await flow([
      "tools",
      "coverage",
      "--mcp-config",
      config,
      "--prd",
      "prd.json",
      "--json",
      "--min",
      "90",
    ]);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report.specialists.map((s: { name: string; servers: string[] }) => [s.name, s.servers])).toEqual([
      ["development-agent", ["filesystem"]],
      ["security-agent", ["filesystem", "memory"]],
    ]);
    // everything is used by no step of this PRD; memory only by the read-only-skilled security step
    expect(report.reachable).toBe(14);
    expect(report.unreachable).toContainEqual({
      qualifiedName: "everything__echo",
      server: "everything",
      reason: 'no specialist\'s steps use server "everything"',
    });
    const text = await flow(["tools", "coverage", "--mcp-config", config, "--prd", "prd.json", "--min", "30"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^Coverage: 14 of 36 tools reachable by at least one specialist \(38\.9%\)/);
    expect(text.stdout).toMatch(/security-agent\s+filesystem, memory\s+security-audit\s+23\s+10\s+7\s+3/);
  });

  it("without a PRD every specialist gets every server: 100%", async () => {
    const result = await flow(["tools", "coverage", "--mcp-config", config, "--min", "100", "--json"]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      tools: 36,
      reachable: 36,
      percent: 100,
      unreachable: [],
      deadAliases: [],
    });
  });

  it("rejects a bad --min and a missing MCP config as usage errors", async () => {
    expect((await flow(["tools", "coverage", "--mcp-config", config, "--min", "150"])).code).toBe(2);
    const none = await runFlow(["tools", "coverage"], { cwd: dir });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("no MCP config");
  });

  it("flow tools --help lists the three commands", async () => {
    const result = await runFlow(["tools", "--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/resolve.*\n[\s\S]*classify[\s\S]*coverage/);
    expect(result.stdout).toContain("Exit codes:");
  });
});

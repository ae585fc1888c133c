import type { ToolDescriptor } from "@meshflow/core";
import {
  type CapabilityIndex,
  classifyTools,
  computeCoverage,
  computeRepertoire,
  createResolver,
  findSkill,
  loadAliasMaps,
  loadCapabilityCatalog,
  loadCapabilityOverrides,
  loadSkills,
  resolveSkillTools,
  type Skill,
} from "@meshflow/resolver";
import { beforeAll, describe, expect, it } from "vitest";
import { discoverAllRealTools } from "../helpers/realServerTools.js";

// Real tools of the npm servers, discovered over stdio with the MCP SDK client.
let filesystem: ToolDescriptor[];
let memory: ToolDescriptor[];
let everything: ToolDescriptor[];
let all: ToolDescriptor[];
let index: CapabilityIndex;
let skills: Skill[];

beforeAll(async () => {
  ({ filesystem, memory, everything } = await discoverAllRealTools());
  all = [...filesystem, ...memory, ...everything];
  const catalog = loadCapabilityCatalog();
  const overrides = loadCapabilityOverrides("skills/capability-overrides.yaml", catalog);
  index = await classifyTools(all, { catalog, overrides });
  skills = loadSkills("skills", { catalog });
});

const names = (tools: readonly { qualifiedName: string }[]) => tools.map((t) => t.qualifiedName);

describe("skills over the real tools of server-filesystem and server-memory", () => {
  it("testing grants the filesystem's read tools (no test runner or shell there) and everything's diagnostics", () => {
    const granted = resolveSkillTools(findSkill(skills, "testing"), [...filesystem, ...memory], index);
    expect(granted.every((g) => g.permission === "filesystem_read")).toBe(true);
    expect(names(granted)).toEqual([
      "filesystem__read_file",
      "filesystem__read_text_file",
      "filesystem__read_media_file",
      "filesystem__read_multiple_files",
      "filesystem__list_directory",
      "filesystem__list_directory_with_sizes",
      "filesystem__directory_tree",
      "filesystem__search_files",
      "filesystem__get_file_info",
    ]);
    expect(resolveSkillTools(findSkill(skills, "testing"), everything, index).map((g) => g.tool.name)).toEqual([
      "echo",
      "get-annotated-message",
      "toggle-simulated-logging",
      "toggle-subscriber-updates",
      "trigger-long-running-operation",
      "simulate-research-query",
    ]);
  });

  it("knowledge grants the memory server's tools, reads first, each with its permission, none twice", () => {
    const granted = resolveSkillTools(findSkill(skills, "knowledge"), [...filesystem, ...memory], index);
    expect(granted.map((g) => `${g.tool.name}:${g.permission}`)).toEqual([
      "read_graph:memory_read",
      "search_nodes:memory_read",
      "open_nodes:memory_read",
      "create_entities:memory_write",
      "create_relations:memory_write",
      "add_observations:memory_write",
      "delete_entities:memory_write",
      "delete_observations:memory_write",
      "delete_relations:memory_write",
    ]);
  });

  it("refactoring adds the write tools; the override moves list_allowed_directories to system_info", () => {
    const refactoring = names(resolveSkillTools(findSkill(skills, "refactoring"), filesystem, index));
    expect(refactoring).toEqual(
      expect.arrayContaining(["filesystem__write_file", "filesystem__edit_file", "filesystem__move_file"]),
    );
    expect(refactoring).not.toContain("filesystem__list_allowed_directories");
    expect(index.get("filesystem__list_allowed_directories")).toMatchObject({
      source: "override",
      capabilities: ["system_info"],
    });
    const audit = resolveSkillTools(findSkill(skills, "security-audit"), filesystem, index);
    expect(audit.find((g) => g.tool.name === "list_allowed_directories")?.permission).toBe("system_info");
  });

  it("a read-only security specialist gets only readOnlyHint tools of its skill", () => {
    const repertoire = computeRepertoire(
      [...filesystem, ...memory],
      { name: "security-agent", skills: ["security-audit", "knowledge"], readOnly: true },
      { skills, index },
    );
    expect(repertoire.every((t) => t.annotations.readOnlyHint === true)).toBe(true);
    expect(names(repertoire)).toContain("memory__read_graph");
    expect(names(repertoire)).not.toContain("memory__create_entities");
    expect(names(repertoire)).not.toContain("filesystem__write_file");
  });
});

describe("resolution over real tools", () => {
  it("walks the tiers with provenance", () => {
    const warnings: string[] = [];
    const resolver = createResolver({
      aliases: loadAliasMaps("skills/aliases"),
      capabilities: index,
      onWarning: (w) => warnings.push(w.kind),
    });
    expect(resolver.resolve("read_text_file", all)).toMatchObject({
      qualifiedName: "filesystem__read_text_file",
      tier: "exact",
    });
    expect(resolver.resolve("fs_read", all)).toMatchObject({
      qualifiedName: "filesystem__read_text_file",
      tier: "alias",
    });
    expect(resolver.resolve("security_scan_secrets", all, { specialist: "security-agent" })).toMatchObject({
      qualifiedName: "filesystem__search_files",
      tier: "alias",
    });
    expect(resolver.resolve("fs_directory_tree", all)).toMatchObject({
      qualifiedName: "filesystem__directory_tree",
      tier: "prefix",
    });
    expect(resolver.resolve("calculator", all)).toMatchObject({
      qualifiedName: "everything__get-sum",
      tier: "capability",
    });
    expect(warnings).toEqual(["prefix_strip"]);
    expect(() => resolver.resolve("recall", all)).toThrow(
      /ambiguous at the capability tier .*memory__read_graph, memory__search_nodes, memory__open_nodes/,
    );
  });

  it("an unknown name lists five real candidates", () => {
    const resolver = createResolver({ capabilities: index });
    let candidates: string[] = [];
    try {
      resolver.resolve("read_fil", [...filesystem, ...memory]);
    } catch (error) {
      candidates = (error as { details: { candidates: string[] } }).details.candidates;
    }
    expect(candidates).toHaveLength(5);
    expect(candidates[0]).toBe("filesystem__read_file");
  });

  it("coverage of the default specialists over the real servers", () => {
    const report = computeCoverage({
      tools: all,
      index,
      skills,
      aliases: loadAliasMaps("skills/aliases"),
      specialists: [
        { specialist: { name: "development-agent" }, servers: ["filesystem", "memory"] },
        { specialist: { name: "quality-agent", skills: ["testing"] }, servers: ["everything", "filesystem"] },
      ],
    });
    // the testing skill grants everything's diagnostics tools only; the rest of that server is unreachable
    expect(names(report.unreachable)).toEqual([
      "everything__get-env",
      "everything__get-resource-links",
      "everything__get-resource-reference",
      "everything__get-structured-content",
      "everything__get-sum",
      "everything__get-tiny-image",
      "everything__gzip-file-as-resource",
    ]);
    expect(report.unreachable[0]?.reason).toBe(
      "in no repertoire of quality-agent (left out by their skills or enrichers)",
    );
    const quality = report.specialists.find((s) => s.name === "quality-agent");
    expect(quality).toMatchObject({ unresolved: [], universe: 27 });
    expect(report.deadAliases).toEqual([]);
  });
});

import { mergeAliasFiles } from "@meshflow/resolver";
import { beforeAll, describe, expect, it } from "vitest";
import { fixtureIndex, SKILLS, TOOLS, tool } from "../test-support/exportFixture.js";
import { buildInventory, type Inventory } from "./buildInventory.js";
import { renderInventory } from "./renderInventory.js";

const aliases = mergeAliasFiles([
  { file: "aliases/shared.yaml", content: { prefixes: ["kg_"], aliases: { fs_read: "read_text_file" } } },
  { file: "aliases/dev.yaml", content: { specialist: "development-agent", prefixes: ["dev_"], aliases: {} } },
]);
// A second server with a tool of the same name: the bare name is ambiguous for whoever has both.
const tools = [...TOOLS, tool("backup", "read_text_file", { readOnlyHint: true })];
let inventory: Inventory;

beforeAll(async () => {
  inventory = buildInventory({
    tools,
    servers: ["filesystem", "kg.store", "backup"],
    specialists: [
      {
        specialist: { name: "development-agent", description: "builds", steps: [1] },
        servers: ["filesystem", "kg.store"],
      },
      { specialist: { name: "quality-agent", skills: ["recall"] }, servers: ["filesystem", "kg.store", "backup"] },
      {
        specialist: { name: "security-agent", readOnly: true, tools: ["dev_read_graph"] },
        servers: ["filesystem", "backup"],
      },
    ],
    skills: SKILLS,
    index: await fixtureIndex(tools),
    aliases,
  });
});

describe("buildInventory", () => {
  it("has the coverage table's rows and a deduplicated total", () => {
    expect(inventory.coverage.specialists.map((s) => [s.name, s.mapped, s.available, s.gap])).toEqual([
      ["development-agent", 1, 4, 3],
      ["quality-agent", 0, 1, 1],
      ["security-agent", 0, 2, 2],
    ]);
    expect(inventory.coverage).toMatchObject({ tools: 5, reachable: 5 });
    expect(inventory.total).toEqual({ mapped: 1, available: 5, gap: 4 });
  });

  it("lists each repertoire tool with what granted it and every name that reaches it", () => {
    const dev = inventory.specialists[0];
    expect(dev?.prefixes).toEqual(["dev_", "kg_"]);
    expect(dev?.tools[0]).toMatchObject({
      qualifiedName: "filesystem__read_text_file",
      capabilities: ["filesystem_read"],
      annotations: { readOnlyHint: true },
      grantedBy: "step",
      mapped: true,
      resolvesFrom: ["bare `read_text_file`", "alias `fs_read` (aliases/shared.yaml)", "capability `filesystem_read`"],
    });
    expect(inventory.specialists[1]?.tools.map((t) => [t.qualifiedName, t.grantedBy])).toEqual([
      ["kg.store__read_graph", "skill:recall/memory_read"],
    ]);
    const security = inventory.specialists[2];
    expect(security?.tools.map((t) => t.qualifiedName)).toEqual([
      "filesystem__read_text_file",
      "backup__read_text_file",
    ]);
    expect(security?.tools[0]?.resolvesFrom[0]).toBe("bare `read_text_file` is ambiguous: qualify it");
  });

  it("lists what each skill grants from every discovered tool, with the permission", () => {
    expect(inventory.skills.map((s) => [s.name, s.tools.map((t) => `${t.qualifiedName}:${t.permission}`)])).toEqual([
      ["recall", ["kg.store__read_graph:memory_read"]],
    ]);
    expect(inventory.skills[0]?.tools[0]?.resolvesFrom).toEqual(["bare `read_graph`", "capability `memory_read`"]);
  });
});

describe("renderInventory", () => {
  const source = { mcpConfig: ".mcp.json", skillsDir: "skills", agents: ["agents"] };

  it("renders the coverage headline, the table with its total row and every tool", () => {
    const text = renderInventory(inventory, source);
    expect(text).toContain("Coverage: 5 of 5 tools reachable by at least one specialist (100.0%)");
    expect(text).toContain("| development-agent | filesystem, kg.store | (all tools) | 1 | 4 | 3 |");
    expect(text).toContain("| **Total (deduplicated)** |  |  | **1** | **5** | **4** |");
    for (const t of tools) expect(text).toContain(`\`${t.qualifiedName}\``);
    expect(text).toContain("### recall");
    expect(text.endsWith("\n")).toBe(true);
  });

  it("is deterministic, and escapes table cells", () => {
    expect(renderInventory(inventory, source)).toBe(renderInventory(inventory, source));
    const piped = { ...inventory, specialists: [{ ...inventory.specialists[0], description: "a | b" }] } as Inventory;
    expect(renderInventory(piped, source)).toContain("a | b");
    const cell = {
      ...inventory,
      coverage: { ...inventory.coverage, unreachable: [{ qualifiedName: "x__y", server: "x", reason: "a|b" }] },
    };
    expect(renderInventory(cell, source)).toContain("| `x__y` | x | a\\|b |");
  });
});

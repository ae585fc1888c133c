import { UniversalTool } from "@meshflow/core";
import { composeEnrichers, denyListEnricher, type ToolEnricher, toolMapOf } from "@meshflow/resolver";
import { beforeAll, describe, expect, it } from "vitest";
import { harnessSettings, parseExportConfig } from "../config/ExportConfig.js";
import type { ToolUniverse } from "../model/baseToolMap.js";
import { fixtureUniverse, specialist, TOOLS } from "../test-support/exportFixture.js";
import { planAgentExport } from "../write/planAgentExport.js";
import { addToolsEnricher, forSpecialists, harnessReadOnlyEnricher, stripMcpEnricher } from "./harnessEnrichers.js";

let universe: ToolUniverse;
beforeAll(async () => {
  universe = await fixtureUniverse();
});

const dev = specialist("development-agent", { harnessTools: [UniversalTool.read] });
const auditor = specialist("security-agent", { readOnly: true, harnessTools: [UniversalTool.read] });

/** The exported tool names of one specialist for `harness` with `enrichers`. */
function exported(enrichers: ToolEnricher[], who = dev, harness: "claude-code" | "copilot" = "claude-code"): string[] {
  const plan = planAgentExport({
    harness,
    format: "md",
    specialists: [who],
    universe,
    outDir: "/nonexistent",
    enrichers,
  });
  return plan.agents[0]?.tools.map((t) => t.name) ?? [];
}

describe("enrichers in an export", () => {
  it("change the exported map exactly as composed: order decides", () => {
    const add = addToolsEnricher(["bash"]);
    const deny = denyListEnricher(["bash", "*write*"]);
    expect(exported([add, deny])).toEqual([
      "Read",
      "mcp__filesystem__read_text_file",
      "mcp__kg_store__read_graph",
      "mcp__kg_store__create_entities",
    ]);
    expect(exported([deny, add])).toEqual([
      "Read",
      "mcp__filesystem__read_text_file",
      "mcp__kg_store__read_graph",
      "mcp__kg_store__create_entities",
      "Bash",
    ]);
  });

  it("the composed chain equals applying each enricher to the previous one's output", () => {
    const base = toolMapOf(TOOLS);
    const a = addToolsEnricher([UniversalTool.webfetch]);
    const b = stripMcpEnricher();
    const c = denyListEnricher(["webfetch"]);
    const composed = composeEnrichers([a, b, c])("copilot", dev, base);
    expect([...composed.keys()]).toEqual([...c("copilot", dev, b("copilot", dev, a("copilot", dev, base))).keys()]);
    expect([...composeEnrichers([a, b])("copilot", dev, base).keys()]).toEqual(["webfetch"]);
  });

  it("the read-only rule runs last: no enricher hands a read-only specialist a write tool", () => {
    const everything = addToolsEnricher(["bash", "write", "edit", "task", "webfetch", "grep", "NotebookEdit"]);
    expect(exported([everything], auditor)).toEqual([
      "Read",
      "mcp__filesystem__read_text_file",
      "mcp__kg_store__read_graph",
      "WebFetch",
      "Grep",
    ]);
  });

  it("add takes MCP tools by qualified name too: a server only the harness has", () => {
    expect(exported([addToolsEnricher(["github__get_issue"])], dev, "copilot").at(-1)).toBe("github/get_issue");
    expect(exported([addToolsEnricher(["github__get_issue"])])).toContain("mcp__github__get_issue");
    // without a descriptor its behaviour is unknown: a read-only specialist does not get it
    expect(exported([addToolsEnricher(["github__get_issue"])], auditor)).not.toContain("mcp__github__get_issue");
  });

  it("stripMcp and forSpecialists scope what they touch", () => {
    const strip = forSpecialists(["security-agent"], stripMcpEnricher());
    expect(exported([strip], auditor)).toEqual(["Read"]);
    expect(exported([strip], dev)).toHaveLength(5);
  });

  it("the read-only rule keeps only readOnlyHint MCP tools and read-only universal tools", () => {
    const map = addToolsEnricher(["bash", "grep"])("claude-code", auditor, toolMapOf(TOOLS));
    expect([...harnessReadOnlyEnricher()("claude-code", auditor, map).keys()]).toEqual([
      "filesystem__read_text_file",
      "kg.store__read_graph",
      "grep",
    ]);
  });

  it("an export config's enrichers apply shared ones first, then the harness's, in file order", () => {
    const config = parseExportConfig(
      `enrichers:
  - add: [bash]
harnesses:
  claude-code:
    enrichers:
      - deny: [bash]
  copilot:
    enrichers:
      - stripMcp: true
        specialists: [development-agent]
`,
      "flow-export.yaml",
    );
    expect(exported(harnessSettings(config, "claude-code").enrichers)).not.toContain("Bash");
    expect(exported(harnessSettings(config, "copilot").enrichers, dev, "copilot")).toEqual(["read", "execute"]);
  });
});

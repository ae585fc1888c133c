import type { ToolDescriptor } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { mergeAliasFiles } from "../aliases/AliasMap.js";
import { buildCapabilityCatalog } from "../capabilities/CapabilityCatalog.js";
import { classifyTools } from "../capabilities/classifyTools.js";
import type { Skill } from "../skills/Skill.js";
import { computeCoverage } from "./computeCoverage.js";

function tool(server: string, name: string, readOnly = true): ToolDescriptor {
  return {
    qualifiedName: `${server}__${name}`,
    server,
    name,
    description: "",
    inputSchema: {},
    annotations: { readOnlyHint: readOnly },
  };
}

const tools = [
  tool("fin", "dcf_model"),
  tool("fin", "tail_risk_analysis"),
  tool("fin", "credit_spreads"),
  tool("fin", "book_trade", false),
  tool("crypto", "token_valuation"),
];
const catalog = buildCapabilityCatalog({
  version: 1,
  capabilities: {
    valuation: { description: "v", tools: ["dcf_model", "token_valuation"] },
    risk: { description: "r", tools: ["tail_risk_analysis"] },
  },
});
const skills: Skill[] = [
  { name: "risk", description: "r", permissions: ["risk"], body: "", file: "risk/SKILL.md", metadata: {} },
];
const aliases = mergeAliasFiles([
  {
    file: "quant.yaml",
    content: {
      specialist: "quant-risk-analyst",
      prefixes: [],
      aliases: { quant_risk_var_calculation: "tail_risk_analysis", quant_risk_gone: "nope" },
    },
  },
  {
    file: "equity.yaml",
    content: { specialist: "equity-analyst", prefixes: [], aliases: { valuation_dcf_model: "dcf_model" } },
  },
]);

describe("computeCoverage", () => {
  it("reports reachable tools, per-specialist mapped vs available, and the unreachable list with reasons", async () => {
    const index = await classifyTools(tools, { catalog });
    const report = computeCoverage({
      tools,
      index,
      skills,
      aliases,
      specialists: [
        { specialist: { name: "equity-analyst", readOnly: true, tools: ["credit_spreads"] }, servers: ["fin"] },
        { specialist: { name: "quant-risk-analyst", skills: ["risk"] }, servers: ["fin"] },
      ],
    });
    expect(report).toMatchObject({ tools: 5, reachable: 3, percent: 60 });
    expect(
      report.specialists.map(({ name, universe, available, mapped, gap }) => ({
        name,
        universe,
        available,
        mapped,
        gap,
      })),
    ).toEqual([
      // read-only: book_trade is left out; its alias and its named tool reach 2 of 3
      { name: "equity-analyst", universe: 4, available: 3, mapped: 2, gap: 1 },
      { name: "quant-risk-analyst", universe: 4, available: 1, mapped: 1, gap: 0 },
    ]);
    // the mapped tools themselves, so a report can deduplicate them across specialists
    expect(report.specialists.map((s) => s.mappedTools)).toEqual([
      ["fin__dcf_model", "fin__credit_spreads"],
      ["fin__tail_risk_analysis"],
    ]);
    expect(report.specialists[1]?.unresolved.map((u) => [u.name, u.code])).toEqual([
      ["quant_risk_gone", "tool_not_found"],
    ]);
    expect(report.unreachable).toEqual([
      {
        qualifiedName: "fin__book_trade",
        server: "fin",
        reason: "in no repertoire of equity-analyst, quant-risk-analyst (left out by their skills or enrichers)",
      },
      {
        qualifiedName: "crypto__token_valuation",
        server: "crypto",
        reason: 'no specialist\'s steps use server "crypto"',
      },
    ]);
    expect(report.deadAliases).toEqual([
      { from: "quant_risk_gone", to: "nope", file: "quant.yaml", specialist: "quant-risk-analyst" },
    ]);
    expect(report.servers).toEqual([
      { server: "fin", tools: 4, reachable: 3 },
      { server: "crypto", tools: 1, reachable: 0 },
    ]);
  });

  it("is 100% when every tool is in some repertoire, and 100% of nothing", async () => {
    const index = await classifyTools(tools, { catalog });
    const all = computeCoverage({
      tools,
      index,
      skills,
      specialists: [{ specialist: { name: "dev" }, servers: ["fin", "crypto"] }],
    });
    expect(all.percent).toBe(100);
    expect(all.unreachable).toEqual([]);
    expect(computeCoverage({ tools: [], index, skills, specialists: [] }).percent).toBe(100);
  });
});

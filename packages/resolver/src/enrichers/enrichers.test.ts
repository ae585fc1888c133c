import type { ToolDescriptor } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { buildCapabilityCatalog } from "../capabilities/CapabilityCatalog.js";
import { classifyTools } from "../capabilities/classifyTools.js";
import { skill } from "../test-support/skill.js";
import { computeRepertoire, computeRepertoireMap } from "./computeRepertoire.js";
import { denyListEnricher } from "./denyListEnricher.js";
import { readOnlyEnricher } from "./readOnlyEnricher.js";
import { skillsEnricher } from "./skillsEnricher.js";
import { composeEnrichers, type ToolEnricher, toolMapOf } from "./ToolEnricher.js";

function tool(server: string, name: string, readOnly: boolean): ToolDescriptor {
  return {
    qualifiedName: `${server}__${name}`,
    server,
    name,
    description: "",
    inputSchema: { type: "object" },
    annotations: readOnly ? { readOnlyHint: true } : {},
  };
}

const tools = [
  tool("fs", "read_file", true),
  tool("fs", "write_file", false),
  tool("kg", "read_graph", true),
  tool("kg", "delete_entities", false),
];
const catalog = buildCapabilityCatalog({
  version: 1,
  capabilities: {
    filesystem_read: { description: "r", tools: ["read_file"] },
    filesystem_write: { description: "w", tools: ["write_file"] },
    memory_read: { description: "m", tools: ["read_graph"] },
    memory_write: { description: "mw", tools: ["delete_entities"] },
  },
});
const skills = [skill("files", ["filesystem_read", "filesystem_write"]), skill("recall", ["memory_read"])];
const keys = (map: ReadonlyMap<string, unknown>) => [...map.keys()];

describe("composeEnrichers", () => {
  it("applies enrichers left to right: the order decides the result", () => {
    const addWrite: ToolEnricher = (_h, _s, map) =>
      new Map([...map, ["fs__write_file", { qualifiedName: "fs__write_file", source: "add" }]]);
    const deny = denyListEnricher(["*write*"]);
    const base = toolMapOf([tools[0] as ToolDescriptor]);
    const specialist = { name: "dev" };
    expect(keys(composeEnrichers([addWrite, deny])("meshflow", specialist, base))).toEqual(["fs__read_file"]);
    expect(keys(composeEnrichers([deny, addWrite])("meshflow", specialist, base))).toEqual([
      "fs__read_file",
      "fs__write_file",
    ]);
  });

  it("passes the harness through, and never mutates the input map", () => {
    const seen: string[] = [];
    const spy: ToolEnricher = (harness, _s, map) => {
      seen.push(harness);
      return map;
    };
    const base = toolMapOf(tools);
    const out = composeEnrichers([spy, denyListEnricher(["fs__*"]), spy])("copilot", { name: "x" }, base);
    expect(seen).toEqual(["copilot", "copilot"]);
    expect(base.size).toBe(4);
    expect(keys(out)).toEqual(["kg__read_graph", "kg__delete_entities"]);
  });
});

describe("readOnlyEnricher / denyListEnricher", () => {
  it("read-only drops tools without readOnlyHint only for read-only specialists", () => {
    const enrich = readOnlyEnricher();
    expect(keys(enrich("meshflow", { name: "a", readOnly: true }, toolMapOf(tools)))).toEqual([
      "fs__read_file",
      "kg__read_graph",
    ]);
    expect(enrich("meshflow", { name: "a" }, toolMapOf(tools)).size).toBe(4);
  });

  it("deny list matches qualified names, bare names and globs, globally and per specialist", () => {
    const enrich = denyListEnricher({ all: ["write_file"], bySpecialist: { auditor: ["kg__*"] } });
    expect(keys(enrich("meshflow", { name: "dev" }, toolMapOf(tools)))).toEqual([
      "fs__read_file",
      "kg__read_graph",
      "kg__delete_entities",
    ]);
    expect(keys(enrich("meshflow", { name: "auditor" }, toolMapOf(tools)))).toEqual(["fs__read_file"]);
  });
});

describe("computeRepertoire", () => {
  it("without skills a specialist gets every tool of the step; with skills only what they grant", async () => {
    const index = await classifyTools(tools, { catalog });
    expect(computeRepertoire(tools, { name: "dev" }, { skills, index })).toEqual(tools);
    const withSkills = computeRepertoireMap(tools, { name: "qa", skills: ["recall", "files"] }, { skills, index });
    expect([...withSkills.values()].map((e) => [e.qualifiedName, e.source])).toEqual([
      ["kg__read_graph", "skill:recall/memory_read"],
      ["fs__read_file", "skill:files/filesystem_read"],
      ["fs__write_file", "skill:files/filesystem_write"],
    ]);
    // returned in the step's tool order
    expect(
      computeRepertoire(tools, { name: "qa", skills: ["recall", "files"] }, { skills, index }).map((t) => t.name),
    ).toEqual(["read_file", "write_file", "read_graph"]);
  });

  it("runs the given enrichers after the skills, and the read-only rule last", async () => {
    const index = await classifyTools(tools, { catalog });
    const addEverything: ToolEnricher = (_h, _s, map) => new Map([...toolMapOf(tools), ...map]);
    const specialist = { name: "auditor", skills: ["recall"], readOnly: true };
    expect(
      computeRepertoire(tools, specialist, { skills, index, enrichers: [addEverything] }).map((t) => t.name),
    ).toEqual(["read_file", "read_graph"]);
  });

  it("keeps only tools of the step's servers, whatever an enricher adds", async () => {
    const index = await classifyTools(tools, { catalog });
    const stepTools = tools.filter((t) => t.server === "kg");
    const addFs: ToolEnricher = (_h, _s, map) =>
      new Map([...map, ...toolMapOf(tools.filter((t) => t.server === "fs"))]);
    expect(computeRepertoire(stepTools, { name: "dev" }, { skills, index, enrichers: [addFs] })).toEqual(stepTools);
  });

  it("an unknown skill is skill_unknown naming the specialist", async () => {
    const index = await classifyTools(tools, { catalog });
    expect(() => computeRepertoire(tools, { name: "qa", skills: ["testing"] }, { skills, index })).toThrow(
      'unknown skill "testing" (declared by specialist qa)',
    );
  });

  it("skillsEnricher leaves specialists without skills alone", async () => {
    const index = await classifyTools(tools, { catalog });
    const base = toolMapOf(tools.slice(0, 1));
    expect(skillsEnricher({ skills, index, tools })("meshflow", { name: "dev" }, base)).toBe(base);
  });
});

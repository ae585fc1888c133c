import { isMeshflowError, type MeshflowError, type ToolDescriptor } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { mergeAliasFiles } from "../aliases/AliasMap.js";
import { buildCapabilityCatalog } from "../capabilities/CapabilityCatalog.js";
import { classifyTools } from "../capabilities/classifyTools.js";
import { createResolver, type ResolverWarning } from "./createResolver.js";

function tool(server: string, name: string, description = "", readOnly = true): ToolDescriptor {
  return {
    qualifiedName: `${server}__${name}`,
    server,
    name,
    description,
    inputSchema: { type: "object" },
    annotations: { readOnlyHint: readOnly },
  };
}

function failure(fn: () => unknown): MeshflowError {
  try {
    fn();
  } catch (error) {
    if (isMeshflowError(error)) return error;
    throw error;
  }
  throw new Error("expected a MeshflowError");
}

const repertoire = [
  tool("fin", "dcf_model", "Discounted cash flow valuation of a company"),
  tool("fin", "tail_risk_analysis", "Value at risk and expected shortfall of a portfolio"),
  tool("fin", "credit_spreads", "Credit spread curves by rating"),
  tool("fs", "read_file", "Read the complete contents of a file"),
  tool("fs", "write_file", "Write a file", false),
  tool("other", "read_file", "Read a file from the other store"),
  tool("kg", "read_graph", "Read the entire knowledge graph"),
];

const aliases = mergeAliasFiles([
  {
    file: "shared.yaml",
    content: { prefixes: ["valuation_"], aliases: { fs_write: "write_file", pinned_read: "fs__read_file" } },
  },
  {
    file: "quant.yaml",
    content: {
      specialist: "quant-risk-analyst",
      prefixes: ["quant_risk_"],
      aliases: { quant_risk_var_calculation: "tail_risk_analysis", gone: "no_such_tool" },
    },
  },
]);

describe("createResolver", () => {
  it("tier exact: a qualified name, or a bare name unique in the repertoire", () => {
    const resolver = createResolver();
    expect(resolver.resolve("fs__read_file", repertoire)).toMatchObject({
      input: "fs__read_file",
      qualifiedName: "fs__read_file",
      server: "fs",
      tool: "read_file",
      tier: "exact",
      warnings: [],
    });
    expect(resolver.resolve("dcf_model", repertoire).qualifiedName).toBe("fin__dcf_model");
  });

  it("a bare name on two servers is ambiguous, never a silent first pick", () => {
    const error = failure(() => createResolver().resolve("read_file", repertoire));
    expect(error.code).toBe("tool_ambiguous");
    expect(error.details.candidates).toEqual(["fs__read_file", "other__read_file"]);
    expect(error.message).toContain("use a qualified name");
  });

  it("tier alias: the specialist's pack first (semantic mappings), then shared entries", () => {
    const resolver = createResolver({ aliases });
    const semantic = resolver.resolve("quant_risk_var_calculation", repertoire, { specialist: "quant-risk-analyst" });
    expect(semantic).toMatchObject({
      qualifiedName: "fin__tail_risk_analysis",
      tier: "alias",
      via: "quant_risk_var_calculation → tail_risk_analysis in quant.yaml",
      warnings: [],
    });
    expect(resolver.resolve("fs_write", repertoire, { specialist: "quant-risk-analyst" }).tier).toBe("alias");
    expect(resolver.resolve("pinned_read", repertoire).qualifiedName).toBe("fs__read_file");
    // another specialist does not see the quant pack
    expect(failure(() => resolver.resolve("quant_risk_var_calculation", repertoire)).code).toBe("tool_not_found");
  });

  it("an alias whose target is not in the repertoire warns and falls through to the next tiers", () => {
    const warnings: ResolverWarning[] = [];
    const resolver = createResolver({ aliases, onWarning: (w) => warnings.push(w) });
    const error = failure(() => resolver.resolve("gone", repertoire, { specialist: "quant-risk-analyst" }));
    expect(error.code).toBe("tool_not_found");
    expect(warnings.map((w) => w.kind)).toEqual(["alias_target_missing"]);
    expect(error.details.warnings).toEqual([expect.stringContaining('"no_such_tool"')]);
  });

  it("tier prefix: strips a configured prefix, then matches exactly; warns and counts every time", () => {
    const warnings: ResolverWarning[] = [];
    const resolver = createResolver({ aliases, onWarning: (w) => warnings.push(w) });
    const first = resolver.resolve("valuation_dcf_model", repertoire);
    expect(first).toMatchObject({ qualifiedName: "fin__dcf_model", tier: "prefix" });
    expect(first.warnings[0]).toContain('add an alias entry "valuation_dcf_model: dcf_model"');
    resolver.resolve("valuation_dcf_model", repertoire);
    const own = resolver.resolve("quant_risk_credit_spreads", repertoire, { specialist: "quant-risk-analyst" });
    expect(own.qualifiedName).toBe("fin__credit_spreads");
    expect(warnings.map((w) => [w.kind, w.input, w.prefix, w.count])).toEqual([
      ["prefix_strip", "valuation_dcf_model", "valuation_", 1],
      ["prefix_strip", "valuation_dcf_model", "valuation_", 2],
      ["prefix_strip", "quant_risk_credit_spreads", "quant_risk_", 1],
    ]);
    expect(resolver.stats().prefixStrips).toEqual({ valuation_dcf_model: 2, quant_risk_credit_spreads: 1 });
    expect(resolver.stats().byTier.prefix).toBe(3);
  });

  it("tier prefix: two prefixes stripping to two different tools is ambiguous", () => {
    const tools = [tool("a", "risk_report"), tool("a", "report")];
    const resolver = createResolver({ prefixes: ["quant_", "quant_risk_"] });
    const error = failure(() => resolver.resolve("quant_risk_report", tools));
    expect(error.code).toBe("tool_ambiguous");
    expect(error.details).toMatchObject({ tier: "prefix", candidates: ["a__risk_report", "a__report"] });
  });

  it("tier capability: the name's capability matching exactly one tool; two tools are ambiguous", async () => {
    const catalog = buildCapabilityCatalog({
      version: 1,
      capabilities: {
        memory_read: { description: "read memory", tools: ["read_graph", "recall"] },
        filesystem_read: { description: "read files", tools: ["read_file", "cat_file"] },
      },
    });
    const index = await classifyTools(repertoire, { catalog });
    const resolver = createResolver({ capabilities: index });
    expect(resolver.resolve("recall", repertoire)).toMatchObject({
      qualifiedName: "kg__read_graph",
      tier: "capability",
    });
    const error = failure(() => resolver.resolve("cat_file", repertoire));
    expect(error.code).toBe("tool_ambiguous");
    expect(error.details).toMatchObject({ tier: "capability", candidates: ["fs__read_file", "other__read_file"] });
  });

  it("tool_not_found lists the five most similar tools by name and description: did you mean", () => {
    const error = failure(() => createResolver().resolve("value_at_risk", repertoire, { specialist: "x" }));
    expect(error.code).toBe("tool_not_found");
    const candidates = error.details.candidates as string[];
    expect(candidates).toHaveLength(5);
    // only the description says "value at risk"
    expect(candidates[0]).toBe("fin__tail_risk_analysis");
    expect(error.message).toMatch(/^tool "value_at_risk" not found among the 7 tools of fin, fs, other, kg/);
    expect(error.message).toContain('did you mean "fin__tail_risk_analysis"');
    const typo = failure(() => createResolver().resolve("dfc_model", repertoire));
    expect((typo.details.candidates as string[])[0]).toBe("fin__dcf_model");
  });

  it("suggestions: false skips ranking candidates", () => {
    const error = failure(() => createResolver().resolve("dfc_model", repertoire, { suggestions: false }));
    expect(error.code).toBe("tool_not_found");
    expect(error.details.candidates).toEqual([]);
    expect(error.message).not.toContain("did you mean");
  });

  it("tryResolve returns the resolution or the failure instead of throwing", () => {
    const resolver = createResolver({ aliases });
    expect(resolver.tryResolve("fs_write", repertoire)).toMatchObject({
      qualifiedName: "fs__write_file",
      tier: "alias",
    });
    expect(resolver.tryResolve("nope", repertoire)).toEqual({
      code: "tool_not_found",
      input: "nope",
      message: 'tool "nope" not found',
      candidates: [],
    });
    expect(resolver.tryResolve("read_file", repertoire)).toMatchObject({
      code: "tool_ambiguous",
      candidates: ["fs__read_file", "other__read_file"],
    });
    expect(resolver.stats()).toMatchObject({ notFound: 1, ambiguous: 1 });
  });

  it("an empty repertoire gives tool_not_found without candidates", () => {
    const error = failure(() => createResolver().resolve("anything", []));
    expect(error.message).toContain("in an empty repertoire");
    expect(error.details.candidates).toEqual([]);
  });

  it("counts resolutions by tier, misses and ambiguities", () => {
    const resolver = createResolver({ aliases });
    resolver.resolve("dcf_model", repertoire);
    resolver.resolve("fs_write", repertoire);
    failure(() => resolver.resolve("read_file", repertoire));
    failure(() => resolver.resolve("nope", repertoire));
    expect(resolver.stats()).toMatchObject({
      byTier: { exact: 1, alias: 1, prefix: 0, capability: 0 },
      ambiguous: 1,
      notFound: 1,
    });
  });

  it("sees a different repertoire array as a different repertoire (index cached per array)", () => {
    const resolver = createResolver();
    const small = [tool("fs", "read_file")];
    expect(resolver.resolve("read_file", small).qualifiedName).toBe("fs__read_file");
    expect(failure(() => resolver.resolve("read_file", repertoire)).code).toBe("tool_ambiguous");
    expect(resolver.resolve("read_file", small).qualifiedName).toBe("fs__read_file");
  });
});

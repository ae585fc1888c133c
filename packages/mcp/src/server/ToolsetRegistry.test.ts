import { isMeshflowError } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { proxiedTool } from "./ServedTool.js";
import { type Toolset, ToolsetRegistry } from "./ToolsetRegistry.js";

function serverToolset(name: string, count: number, extra: Partial<Toolset> = {}): Toolset {
  return {
    name,
    description: name,
    kind: "server",
    alwaysLoaded: false,
    tools: Array.from({ length: count }, (_, i) =>
      proxiedTool({
        qualifiedName: `${name}__tool${i}`,
        server: name,
        name: `tool${i}`,
        description: `Does thing ${i} with ${name} files.`,
        inputSchema: { type: "object" },
        annotations: { readOnlyHint: true },
      }),
    ),
    ...extra,
  };
}

function registry(): ToolsetRegistry {
  const r = new ToolsetRegistry();
  r.set({ ...serverToolset("discovery", 4), kind: "own", alwaysLoaded: true });
  r.set({ ...serverToolset("core", 9), kind: "own", alwaysLoaded: true });
  r.set(serverToolset("small", 5));
  r.set(serverToolset("huge", 30));
  r.set(serverToolset("medium", 20));
  r.set(serverToolset("tiny", 2));
  r.set(serverToolset("down", 0, { unavailable: { code: "server_unreachable", message: "refused" } }));
  return r;
}

describe("ToolsetRegistry", () => {
  it("builds the default from the always-loaded toolsets and the others that still fit in 40 tools", () => {
    const r = registry();
    expect(r.defaultToolsets()).toEqual(["core", "discovery", "small", "medium", "tiny"]);
    expect(r.toolCount(r.defaultToolsets())).toBe(40);
    expect(r.select({})).toMatchObject({ source: "built-in", toolCount: 40, warnings: [] });
  });

  it("lets --toolsets win over the config, expands all, and warns past the limit", () => {
    const r = registry();
    expect(r.select({ flag: ["huge"], clientOverride: ["tiny"] })).toMatchObject({
      source: "flag",
      toolsets: ["core", "discovery", "huge"],
      toolCount: 43,
      warnings: [expect.stringContaining("more than 40")],
    });
    expect(r.select({ clientOverride: ["tiny"], configDefault: ["small"] }).toolsets).toEqual([
      "core",
      "discovery",
      "tiny",
    ]);
    expect(r.select({ configDefault: ["small"] }).source).toBe("config-default");
    const all = r.select({ flag: ["all"] });
    expect(all.toolsets).toEqual(["core", "discovery", "small", "huge", "medium", "tiny"]);
    expect(all.warnings[0]).toBe("toolset down is unavailable: refused");
  });

  it("refuses an unknown toolset name with a suggestion", () => {
    try {
      registry().select({ flag: ["smal"] });
      expect.unreachable();
    } catch (error) {
      expect(isMeshflowError(error) && error.code).toBe("toolset_unknown");
      expect((error as Error).message).toBe(
        '--toolsets: unknown toolset "smal" (did you mean "small"?); known: core, discovery, small, huge, medium, tiny, down, all',
      );
    }
  });

  it("keeps served names unique across toolsets and tells listeners about replacements", () => {
    const r = registry();
    const heard: string[] = [];
    r.onChange((name) => heard.push(name));
    r.set(serverToolset("tiny", 3));
    expect(heard).toEqual(["tiny"]);
    expect(r.tool("tiny__tool2")?.toolset).toBe("tiny");
    const clash = { ...serverToolset("other", 0), tools: [{ ...r.tool("tiny__tool0"), toolset: "other" }] } as Toolset;
    expect(() => r.set(clash)).toThrow(/already served by toolset "tiny"/);
  });

  it("searches names, toolsets and descriptions, best first", () => {
    const hits = registry().search("tool3 medium", 3);
    expect(hits[0]?.tool.name).toBe("medium__tool3");
    expect(hits.map((h) => h.tool.toolset)).toContain("medium");
    expect(registry().search("!!")).toEqual([]);
  });
});

import { describe, expect, it } from "vitest";
import { UNIVERSAL_TOOL_KINDS, UniversalTool, UniversalToolSchema } from "./UniversalTool.js";

describe("UniversalTool", () => {
  it("toString / fromString round-trip every universal tool to the same frozen value", () => {
    for (const kind of UNIVERSAL_TOOL_KINDS) {
      const tool = UniversalTool[kind];
      expect(UniversalTool.toString(tool)).toBe(kind);
      expect(UniversalTool.fromString(kind)).toBe(tool);
      expect(Object.isFrozen(tool)).toBe(true);
    }
  });

  it("an unknown name is a custom tool, written out verbatim", () => {
    const notebook = UniversalTool.fromString("NotebookEdit");
    expect(notebook).toEqual({ kind: "custom", name: "NotebookEdit" });
    expect(UniversalTool.toString(notebook)).toBe("NotebookEdit");
    expect(UniversalTool.custom("lsp")).toEqual({ kind: "custom", name: "lsp" });
  });

  it("refuses a custom tool named like a universal one, or one that reads as an MCP tool", () => {
    expect(() => UniversalTool.custom("bash")).toThrow("use UniversalTool.bash instead");
    expect(() => UniversalTool.custom("filesystem__read_file")).toThrow('without "__"');
    expect(() => UniversalTool.fromString("two words")).toThrow("is not a tool name");
  });

  it("knows which universal tools are read-only; custom tools are not assumed to be", () => {
    expect(UNIVERSAL_TOOL_KINDS.filter((k) => UniversalTool.isReadOnly(UniversalTool[k]))).toEqual([
      "read",
      "grep",
      "glob",
      "webfetch",
      "websearch",
      "todo",
    ]);
    expect(UniversalTool.isReadOnly(UniversalTool.custom("NotebookRead"))).toBe(false);
  });

  it("UniversalToolSchema accepts the values and rejects strings and unknown kinds", () => {
    expect(UniversalToolSchema.safeParse(UniversalTool.webfetch).success).toBe(true);
    expect(UniversalToolSchema.safeParse(UniversalTool.custom("lsp")).success).toBe(true);
    expect(UniversalToolSchema.safeParse("bash").success).toBe(false);
    expect(UniversalToolSchema.safeParse({ kind: "shell" }).success).toBe(false);
    expect(UniversalToolSchema.safeParse({ kind: "custom", name: "edit" }).success).toBe(false);
  });
});

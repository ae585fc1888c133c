import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CapabilityOverridesFileSchema } from "@meshflow/resolver";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { writeOverride } from "./writeOverride.js";

const KNOWN = ["diagnostics", "memory_read", "system_info", "filesystem_read"];
const ADMIN = `# Admin overrides.
overrides:
  # why this one
  everything__simulate-research-query: [diagnostics]
  list_allowed_directories: { add: [system_info], remove: [filesystem_read] }
`;

function file(text?: string): string {
  const path = join(mkdtempSync(join(tmpdir(), "meshflow-overrides-")), "skills", "capability-overrides.yaml");
  if (text !== undefined) {
    writeOverride(path, { tool: "x", capabilities: null }, KNOWN); // creates the folder
    writeFileSync(path, text);
  }
  return path;
}

describe("writeOverride", () => {
  it("adds an entry and keeps every other line as written", () => {
    const path = file(ADMIN);
    writeOverride(path, { tool: "memory__read_graph", capabilities: ["memory_read", "diagnostics"] }, KNOWN);
    expect(readFileSync(path, "utf8")).toBe(`${ADMIN}  memory__read_graph: [memory_read, diagnostics]\n`);
  });

  it("replaces an entry's value in place and removes an entry's line", () => {
    const path = file(ADMIN);
    writeOverride(path, { tool: "everything__simulate-research-query", capabilities: ["system_info"] }, KNOWN);
    expect(readFileSync(path, "utf8")).toContain("  everything__simulate-research-query: [system_info]\n");
    writeOverride(path, { tool: "list_allowed_directories", capabilities: null }, KNOWN);
    const text = readFileSync(path, "utf8");
    expect(text).not.toContain("list_allowed_directories");
    expect(CapabilityOverridesFileSchema.parse(parse(text)).overrides).toEqual({
      "everything__simulate-research-query": ["system_info"],
    });
  });

  it("creates the file when there is none, valid for the overrides schema", () => {
    const path = file();
    writeOverride(path, { tool: "read_graph", capabilities: ["memory_read"] }, KNOWN);
    expect(CapabilityOverridesFileSchema.parse(parse(readFileSync(path, "utf8"))).overrides).toEqual({
      read_graph: ["memory_read"],
    });
    writeOverride(path, { tool: "read_graph", capabilities: null }, KNOWN);
    expect(CapabilityOverridesFileSchema.parse(parse(readFileSync(path, "utf8"))).overrides).toEqual({});
  });

  it("refuses an unknown capability with a suggestion and leaves the file untouched", () => {
    const path = file(ADMIN);
    expect(() => writeOverride(path, { tool: "t", capabilities: ["diagnostic"] }, KNOWN)).toThrow(
      /overrides\.t: unknown capability "diagnostic" \(did you mean "diagnostics"\?\)/,
    );
    expect(readFileSync(path, "utf8")).toBe(ADMIN);
  });
});

import { describe, expect, it } from "vitest";
import { MINIMAL_DESCRIPTION_MAX, minimalDescription, proxiedDescriptions } from "./toolDescriptions.js";

describe("minimalDescription", () => {
  it("keeps the first sentence", () => {
    expect(minimalDescription("Reads a file. Handles encodings.\nMore.", "x")).toBe("Reads a file.");
  });

  it("cuts a long first sentence at a word, within the limit", () => {
    const long = `Create a new file or completely overwrite an existing file with new content and ${"more words ".repeat(10)}`;
    const short = minimalDescription(long, "x");
    expect(short.length).toBeLessThanOrEqual(MINIMAL_DESCRIPTION_MAX);
    expect(short).toMatch(/^Create a new file or completely overwrite .*\w…$/);
  });

  it("falls back when the text is empty", () => {
    expect(minimalDescription("  ", "echo (everything)")).toBe("echo (everything)");
  });
});

describe("proxiedDescriptions", () => {
  it("gives rich text with origin and hints, and a minimal first sentence", () => {
    const tiers = proxiedDescriptions({
      qualifiedName: "filesystem__write_file",
      server: "filesystem",
      name: "write_file",
      description: "Create a new file or overwrite one. Use with caution.",
      inputSchema: { type: "object" },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    });
    expect(tiers.minimal).toBe("Create a new file or overwrite one.");
    expect(tiers.rich).toContain("Create a new file or overwrite one. Use with caution.");
    expect(tiers.rich).toContain('Tool "write_file" of MCP server "filesystem" (toolset filesystem).');
    expect(tiers.rich).toContain("Destructive: may overwrite or delete data; idempotent");
    expect(tiers.rich.length).toBeGreaterThan(tiers.minimal.length);
  });
});

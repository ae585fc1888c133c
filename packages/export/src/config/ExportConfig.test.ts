import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { harnessSettings, loadExportSettings, parseExportConfig } from "./ExportConfig.js";

describe("parseExportConfig", () => {
  it("reads extra definition keys per harness, the specialist's over the harness's", () => {
    const config = parseExportConfig(
      `harnesses:
  claude-code:
    frontmatter: { model: sonnet, color: blue }
    specialists:
      security-agent: { frontmatter: { model: haiku } }
`,
      "flow-export.yaml",
    );
    const settings = harnessSettings(config, "claude-code", "flow-export.yaml");
    expect(settings.extras("security-agent")).toEqual({ model: "haiku", color: "blue" });
    expect(settings.extras("development-agent")).toEqual({ model: "sonnet", color: "blue" });
    expect(harnessSettings(config, "copilot").extras("security-agent")).toEqual({});
  });

  it("names the file and the JSON path of every problem", () => {
    const bad = `enrichers:
  - add: ["two words"]
  - drop: [bash]
harnesses:
  cursor: {}
  copilot:
    frontmatter: { tools: [read] }
`;
    let message = "";
    try {
      parseExportConfig(bad, "flow-export.yaml");
    } catch (error) {
      message = (error as Error).message;
      expect(error).toMatchObject({ code: "export_config_invalid" });
    }
    expect(message).toContain("flow-export.yaml: $.enrichers[0]");
    expect(message).toContain("flow-export.yaml: $.enrichers[1]");
    expect(message).toContain("flow-export.yaml: $.harnesses");
  });

  it("refuses extra keys a harness writes itself", () => {
    expect(() => parseExportConfig("harnesses:\n  copilot:\n    frontmatter: { tools: [read] }\n", "x.yaml")).toThrow(
      'x.yaml: $.harnesses.copilot.frontmatter.tools: copilot sets "tools" itself from the specialist',
    );
  });

  it("loads the named file, and refuses a missing one; without a file there are no enrichers", () => {
    const dir = mkdtempSync(join(tmpdir(), "meshflow-export-config-"));
    const file = join(dir, "export.yaml");
    writeFileSync(file, "enrichers:\n  - stripMcp: true\n");
    expect(loadExportSettings("opencode", file).enrichers).toHaveLength(1);
    expect(() => loadExportSettings("opencode", join(dir, "missing.yaml"))).toThrow(/cannot read the export config/);
    expect(harnessSettings({}, "opencode").enrichers).toEqual([]);
  });
});

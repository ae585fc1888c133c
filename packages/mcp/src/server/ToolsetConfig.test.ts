import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isMeshflowError } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { assertToolsetNames, loadToolsetConfig, parseToolsetConfig } from "./ToolsetConfig.js";

function thrown(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (error) {
    if (isMeshflowError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error("expected an error");
}

describe("toolset config", () => {
  it("reads defaults, client overrides and client profiles", () => {
    const config = parseToolsetConfig(
      JSON.stringify({
        defaultToolsets: ["filesystem"],
        clientOverrides: { cursor: ["everything"], "claude-code": ["all"] },
        clients: { "my-ide": { mode: "dynamic", annotationAware: true } },
        maxDefaultTools: 30,
      }),
      "toolset-config.json",
    );
    expect(config.clientOverrides?.cursor).toEqual(["everything"]);
    expect(config.clients?.["my-ide"]).toEqual({ mode: "dynamic", annotationAware: true });
  });

  it("names the file, line and column of invalid JSON", () => {
    const e = thrown(() => parseToolsetConfig('{"defaultToolsets": [}', "ts.json"));
    expect(e.code).toBe("toolset_config_invalid");
    expect(e.message).toMatch(/^ts\.json: \$: not valid JSON at line 1, column \d+/);
  });

  it("names the JSON path of each schema problem", () => {
    const e = thrown(() =>
      parseToolsetConfig(JSON.stringify({ defaultToolset: [], clients: { cursor: { mode: "eager" } } }), "ts.json"),
    );
    expect(e.message).toContain("ts.json: $.clients.cursor.mode:");
    expect(e.message).toContain("ts.json: $: Unrecognized key");
  });

  it("rejects toolset names that do not exist, with a suggestion", () => {
    const config = parseToolsetConfig(
      JSON.stringify({ defaultToolsets: ["filesystem"], clientOverrides: { cursor: ["filesytem", "all"] } }),
      "ts.json",
    );
    const e = thrown(() => assertToolsetNames(config, ["core", "discovery", "filesystem"], "ts.json"));
    expect(e.message).toBe(
      'ts.json: $.clientOverrides.cursor[0]: unknown toolset "filesytem" (did you mean "filesystem"?); known: core, discovery, filesystem, all',
    );
  });

  it("reports a missing file as file_not_found", () => {
    const dir = mkdtempSync(join(tmpdir(), "meshflow-tsc-"));
    expect(thrown(() => loadToolsetConfig(join(dir, "nope.json"))).code).toBe("file_not_found");
    writeFileSync(join(dir, "ok.json"), "{}");
    expect(loadToolsetConfig(join(dir, "ok.json"))).toEqual({});
  });
});

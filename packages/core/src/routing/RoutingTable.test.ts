import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadRoutingTable, routedSpecialists } from "./RoutingTable.js";

const dir = mkdtempSync(join(tmpdir(), "meshflow-routing-"));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe("loadRoutingTable", () => {
  it("defaults to the step table of the PRD format", () => {
    const routing = loadRoutingTable();
    expect(Object.fromEntries(routing.steps)).toEqual({
      1: "development-agent",
      2: "development-agent",
      3: "refactor-agent",
      4: "refactor-agent",
      5: "quality-agent",
      6: "refactor-agent",
      7: "development-agent",
      8: "security-agent",
      9: "development-agent",
      10: "security-agent",
      11: "design-agent",
    });
    expect(routing.sources).toEqual(["default"]);
    expect(routedSpecialists(routing)).toEqual([
      "development-agent",
      "refactor-agent",
      "quality-agent",
      "security-agent",
      "design-agent",
    ]);
  });

  it("merges an override file over the default; null removes a step", () => {
    const override = file("r.yaml", "steps:\n  11: mobile-design-agent\n  9: null\n");
    const routing = loadRoutingTable({ overrideFile: override });
    expect(routing.steps.get(11)).toBe("mobile-design-agent");
    expect(routing.steps.has(9)).toBe(false);
    expect(routing.steps.get(1)).toBe("development-agent");
    expect(routing.sources).toEqual(["default", override]);
  });

  it("accepts JSON override files", () => {
    const override = file("r.json", '{"steps": {"5": "strict-quality-agent"}}');
    expect(loadRoutingTable({ overrideFile: override }).steps.get(5)).toBe("strict-quality-agent");
  });

  it("rejects bad override files with file and path", () => {
    expect(() => loadRoutingTable({ overrideFile: file("bad1.yaml", "steps:\n  12: x-agent\n") })).toThrow(
      /bad1\.yaml: \$\.steps\["12"\]: step 12 is outside 1–11/,
    );
    expect(() => loadRoutingTable({ overrideFile: file("bad2.yaml", "steps:\n  3: Refactor Agent\n") })).toThrow(
      /bad2\.yaml: \$\.steps\["3"\]: a specialist name is lower-case kebab-case/,
    );
    expect(() => loadRoutingTable({ overrideFile: file("bad3.yaml", "step:\n  3: x\n") })).toThrow(/bad3\.yaml: \$/);
    expect(() => loadRoutingTable({ overrideFile: join(dir, "missing.yaml") })).toThrow(/cannot read routing file/);
  });
});

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EMPTY_ALIAS_MAP } from "../aliases/AliasMap.js";
import { EMPTY_CAPABILITY_CATALOG } from "../capabilities/CapabilityCatalog.js";
import { loadSkillsFolder } from "./loadSkillsFolder.js";

describe("loadSkillsFolder", () => {
  it("loads the shipped skills folder: catalog, overrides, skills and alias maps", () => {
    const folder = loadSkillsFolder("skills");
    expect(folder.catalog.capabilities.has("filesystem_read")).toBe(true);
    expect(folder.overrides).toBeDefined();
    expect(folder.skills.map((s) => s.name)).toContain("testing");
    expect(folder.aliases).not.toBe(EMPTY_ALIAS_MAP);
  });

  it("requires the catalog unless told it is optional; overrides and aliases are optional", () => {
    const empty = mkdtempSync(join(tmpdir(), "meshflow-skills-"));
    expect(() => loadSkillsFolder(empty)).toThrow(/capabilities\.yaml/);
    expect(loadSkillsFolder(empty, { optionalCatalog: true })).toEqual({
      catalog: EMPTY_CAPABILITY_CATALOG,
      overrides: undefined,
      skills: [],
      aliases: EMPTY_ALIAS_MAP,
    });
  });
});

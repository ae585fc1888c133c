import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadCapabilityCatalog } from "../capabilities/CapabilityCatalog.js";
import { findSkill, loadSkills, skillsForSpecialist, withAttachedSkills } from "./Skill.js";

const catalog = loadCapabilityCatalog();

function skillsDir(skills: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "meshflow-skills-"));
  for (const [name, text] of Object.entries(skills)) {
    mkdirSync(join(dir, name));
    writeFileSync(join(dir, name, "SKILL.md"), text);
  }
  return dir;
}

describe("loadSkills", () => {
  it("loads the shipped skills, their permissions all in the catalog", () => {
    const skills = loadSkills("skills", { catalog });
    expect(skills.map((s) => s.name)).toEqual(["code-review", "knowledge", "refactoring", "security-audit", "testing"]);
    const testing = findSkill(skills, "testing");
    expect(testing.permissions).toEqual(["filesystem_read", "test_run", "code_execute", "diagnostics"]);
    expect(testing.specialists).toEqual(["quality-agent"]);
    expect(testing.body).toMatch(/^# Testing/);
    expect(skillsForSpecialist(skills, "refactor-agent").map((s) => s.name)).toEqual(["code-review", "refactoring"]);
  });

  it("parses frontmatter with a real parser and keeps extra keys as metadata", () => {
    const dir = skillsDir({
      docs: "---\nname: docs\ndescription: 'Writes docs: guides, references'\npermissions:\n  - filesystem_read\nlicense: MIT\n---\nBody text\n",
    });
    const [docs] = loadSkills(dir, { catalog });
    expect(docs).toMatchObject({
      name: "docs",
      description: "Writes docs: guides, references",
      metadata: { license: "MIT" },
      body: "Body text",
    });
  });

  it("names the file and path of an unknown permission, with a suggestion", () => {
    const dir = skillsDir({ x: "---\nname: x\ndescription: d\npermissions: [filesystem_read, web_serch]\n---\n" });
    expect(() => loadSkills(dir, { catalog })).toThrow(
      `${join(dir, "x", "SKILL.md")}: $.permissions[1]: unknown capability "web_serch" (did you mean "web_search"?)`,
    );
  });

  it("rejects missing fields and a name that differs from the folder", () => {
    const missing = skillsDir({ x: "---\nname: x\n---\n" });
    expect(() => loadSkills(missing)).toThrow(
      `${join(missing, "x", "SKILL.md")}: $.description: required string is missing`,
    );
    const renamed = skillsDir({ folder: "---\nname: other\ndescription: d\npermissions: [web_read]\n---\n" });
    expect(() => loadSkills(renamed)).toThrow('the skill is named "other" but its folder is "folder"');
  });

  it("findSkill throws skill_unknown with a suggestion and who needed it", () => {
    const skills = loadSkills("skills", { catalog });
    expect(() => findSkill(skills, "testin", "specialist quality-agent")).toThrow(
      'unknown skill "testin" (declared by specialist quality-agent); did you mean "testing"?',
    );
  });
});

describe("withAttachedSkills", () => {
  it("keeps a specialist's own skills, else attaches the skills that list it, else leaves it alone", () => {
    const skills = loadSkills("skills", { catalog });
    const own = { name: "refactor-agent", skills: ["testing"] };
    expect(withAttachedSkills(own, skills)).toBe(own);
    expect(withAttachedSkills({ name: "refactor-agent", readOnly: false }, skills)).toEqual({
      name: "refactor-agent",
      readOnly: false,
      skills: ["code-review", "refactoring"],
    });
    const plain = { name: "development-agent" };
    expect(withAttachedSkills(plain, skills)).toBe(plain);
  });
});

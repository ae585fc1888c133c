import { loadRoutingTable, PrdSchema } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { isCheckable } from "./checkableCriteria.js";
import { type LintContext, lintPrd } from "./lintPrd.js";
import { stepNeeds } from "./stepNeeds.js";

const context = (over: Partial<LintContext> = {}): LintContext => ({
  maxCriteria: 8,
  test: ["npm", "test"],
  routing: loadRoutingTable({}),
  specialists: new Map([
    ["development-agent", { needsPlan: true }],
    ["quality-agent", { needsPlan: false }],
    ["refactor-agent", { needsPlan: false }],
    ["security-agent", { needsPlan: false }],
    ["design-agent", { needsPlan: false }],
  ]),
  needs: stepNeeds(),
  offered: new Map([
    ["filesystem", new Set(["filesystem_read", "filesystem_write"])],
    ["workspace", new Set(["code_execute", "filesystem_read"])],
    ["memory", new Set(["memory_read", "memory_write"])],
  ]),
  refusals: [],
  modelFromEnv: false,
  ...over,
});

/** A PRD of one story: checkable, verified, planned and served, unless `story` says otherwise. */
const prd = (story: Record<string, unknown>, head: Record<string, unknown> = {}) =>
  PrdSchema.parse({
    project: "P",
    ...head,
    userStories: [
      {
        id: "US-001",
        title: "T",
        acceptanceCriteria: ["`npm test` exits 0"],
        mavenSteps: [5],
        mcpTools: { step5: ["workspace"] },
        verify: [{ run: ["npm", "test"] }],
        priority: 1,
        ...story,
      },
    ],
  });

const rules = (warnings: ReturnType<typeof lintPrd>) => warnings.map((w) => [w.rule, w.path]);

describe("lintPrd", () => {
  it("finds nothing in a story that is checkable, verified, planned and served", () => {
    expect(lintPrd(prd({}), context())).toEqual([]);
  });

  it("warns about a story whose criteria are all vague or missing", () => {
    const vague = prd({ acceptanceCriteria: ["Works correctly", "Good UX", "Done"] });
    expect(rules(lintPrd(vague, context()))).toEqual([["uncheckable-criteria", "$.userStories[0].acceptanceCriteria"]]);
    expect(lintPrd(prd({ acceptanceCriteria: [] }), context())[0]?.message).toContain("no acceptance criteria");
  });

  it("warns about more criteria than --max-criteria", () => {
    const big = prd({ acceptanceCriteria: ["`a` passes", "`b` passes", "`c` passes"] });
    expect(rules(lintPrd(big, context({ maxCriteria: 2 })))).toEqual([
      ["too-many-criteria", "$.userStories[0].acceptanceCriteria"],
    ]);
    expect(lintPrd(big, context({ maxCriteria: 3 }))).toEqual([]);
  });

  it("warns about no verify only when the project has a test command", () => {
    const bare = prd({ verify: undefined });
    const [warning] = lintPrd(bare, context());
    expect(warning).toMatchObject({ rule: "no-verify", path: "$.userStories[0].verify", story: "US-001" });
    expect(warning?.message).toContain('["npm","test"]');
    expect(lintPrd(bare, context({ test: undefined }))).toEqual([]);
  });

  it("warns about a step whose servers offer none of what it needs, or that has none", () => {
    const memoryOnly = prd({ mcpTools: { step5: ["memory"] } });
    expect(rules(lintPrd(memoryOnly, context()))).toEqual([["step-capabilities", "$.userStories[0].mcpTools.step5"]]);
    expect(lintPrd(memoryOnly, context())[0]?.message).toContain("test_run, code_execute");
    const none = prd({ mcpTools: {} });
    expect(rules(lintPrd(none, context()))).toEqual([["step-capabilities", "$.userStories[0].mavenSteps[0]"]]);
    // Unknown capabilities (no config, or a server that could not be listed) are not judged.
    expect(lintPrd(memoryOnly, context({ offered: undefined }))).toEqual([]);
    expect(lintPrd(prd({ mcpTools: { step5: ["gone"] } }), context())).toEqual([]);
  });

  it("warns about a development step with neither calls nor a model or harness", () => {
    const dev = prd({ mavenSteps: [7], mcpTools: { step7: ["filesystem"] } });
    expect(rules(lintPrd(dev, context()))).toEqual([["no-plan", "$.userStories[0].mavenSteps[0]"]]);
    expect(
      lintPrd(prd({ mavenSteps: [7], mcpTools: { step7: ["filesystem"] }, model: "openai:gpt-x" }), context()),
    ).toEqual([]);
    expect(
      lintPrd(prd({ mavenSteps: [7], mcpTools: { step7: ["filesystem"] } }, { harness: "claude-code" }), context()),
    ).toEqual([]);
    const scripted = prd({
      mavenSteps: [7],
      mcpTools: { step7: ["filesystem"] },
      calls: { step7: [{ tool: "filesystem__list_allowed_directories" }] },
    });
    expect(lintPrd(scripted, context())).toEqual([]);
    expect(lintPrd(dev, context({ modelFromEnv: true }))).toEqual([]);
  });

  it("skips stories that passed", () => {
    expect(lintPrd(prd({ passes: true, acceptanceCriteria: [], verify: undefined }), context())).toEqual([]);
  });
});

describe("isCheckable", () => {
  it("takes exact names as checkable and vague or tiny phrases as not", () => {
    expect(isCheckable("`npm test` passes")).toBe(true);
    expect(isCheckable("Responds within 200 ms")).toBe(true);
    expect(isCheckable('Shows the message "Saved"')).toBe(true);
    expect(isCheckable("Writes docs/api.md")).toBe(true);
    expect(isCheckable("The export button downloads the invoices")).toBe(true);
    expect(isCheckable("Works correctly")).toBe(false);
    expect(isCheckable("The page is user-friendly and intuitive")).toBe(false);
    expect(isCheckable("Looks fine")).toBe(false);
  });
});

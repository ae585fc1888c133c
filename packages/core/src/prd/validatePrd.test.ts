import { describe, expect, it } from "vitest";
import { loadRoutingTable } from "../routing/RoutingTable.js";
import { validatePrd } from "./validatePrd.js";

const routing = loadRoutingTable();
const FILE = "prd/x.json";

function story(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { id: "US-001", title: "A story", mavenSteps: [1, 7], priority: 1, passes: false, ...overrides };
}

function problemsOf(stories: unknown[], extra: Record<string, unknown> = {}, specialists?: Set<string>) {
  const { problems } = validatePrd(
    { project: "P", userStories: stories, ...extra },
    { file: FILE, routing, specialists },
  );
  return problems.map((p) => `${p.file}: ${p.path}: ${p.message}`);
}

describe("validatePrd", () => {
  it("accepts a valid PRD and applies defaults", () => {
    const { prd, problems } = validatePrd({ project: "P", userStories: [story()] }, { file: FILE, routing });
    expect(problems).toEqual([]);
    expect(prd?.userStories[0]).toMatchObject({
      description: "",
      acceptanceCriteria: [],
      mcpTools: {},
      notes: "",
    });
  });

  it("reports a dependsOn that names no story, the story itself, or a story that runs after it", () => {
    const stories = [
      story({ id: "US-001", priority: 1 }),
      story({ id: "US-002", priority: 2, dependsOn: ["US-001", "US-0003", "US-002", "US-004"] }),
      story({ id: "US-003", priority: 2 }),
      story({ id: "US-004", priority: 3 }),
      story({ id: "US-005", priority: 2, dependsOn: ["US-003"] }),
    ];
    expect(problemsOf(stories)).toEqual([
      `${FILE}: $.userStories[1].dependsOn[1]: no story "US-0003" in this PRD (did you mean "US-003", "US-001" or "US-002"?)`,
      `${FILE}: $.userStories[1].dependsOn[2]: US-002 cannot depend on itself`,
      `${FILE}: $.userStories[1].dependsOn[3]: "US-004" runs after US-002 (priority 3, then file order; US-002 has 2): give "US-004" a lower priority number or put it first`,
    ]);
  });

  it("keeps unknown fields at every level", () => {
    const { prd } = validatePrd(
      { project: "P", owner: "team-a", userStories: [story({ estimate: 3 })] },
      { file: FILE, routing },
    );
    expect(prd).toMatchObject({ owner: "team-a", userStories: [{ estimate: 3 }] });
  });

  it("reports a step key that is not in mavenSteps with its exact path", () => {
    expect(problemsOf([story(), story({ id: "US-2" }), story({ id: "US-3", mcpTools: { step4: ["m"] } })])).toEqual([
      "prd/x.json: $.userStories[2].mcpTools.step4: step 4 is not in mavenSteps [1,7]",
    ]);
  });

  it("reports keys that are not step<N>, in mcpTools and in calls", () => {
    expect(problemsOf([story({ mcpTools: { build: ["m"] }, calls: { "step 1": [] } })])).toEqual([
      'prd/x.json: $.userStories[0].calls["step 1"]: key must be "step<N>" (e.g. "step1"), found "step 1"',
      'prd/x.json: $.userStories[0].mcpTools.build: key must be "step<N>" (e.g. "step1"), found "build"',
    ]);
  });

  it("reports a calls step that is not in mavenSteps", () => {
    expect(problemsOf([story({ calls: { step3: [{ tool: "x" }] } })])).toEqual([
      "prd/x.json: $.userStories[0].calls.step3: step 3 is not in mavenSteps [1,7]",
    ]);
  });

  it("reports duplicate story ids with both places", () => {
    expect(problemsOf([story(), story({ title: "Again" })])).toEqual([
      'prd/x.json: $.userStories[1].id: duplicate story id "US-001" (also at $.userStories[0].id)',
    ]);
  });

  it("reports a step listed twice", () => {
    expect(problemsOf([story({ mavenSteps: [5, 5] })])).toEqual([
      "prd/x.json: $.userStories[0].mavenSteps[1]: step 5 is listed twice (first at index 0)",
    ]);
  });

  it("reports a step the routing table does not route", () => {
    const partial = { steps: new Map([[1, "development-agent"]]), sources: ["default", "r.yaml"] };
    const { problems } = validatePrd({ project: "P", userStories: [story()] }, { file: FILE, routing: partial });
    expect(problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      "$.userStories[0].mavenSteps[1]: step 7 routes to no specialist (routing: default + r.yaml)",
    ]);
  });

  it("reports a step routed to a specialist that is not known", () => {
    expect(problemsOf([story()], {}, new Set(["development-agent-v2"]))).toEqual([
      'prd/x.json: $.userStories[0].mavenSteps[0]: step 1 routes to "development-agent", which is not a known specialist (known: development-agent-v2)',
      'prd/x.json: $.userStories[0].mavenSteps[1]: step 7 routes to "development-agent", which is not a known specialist (known: development-agent-v2)',
    ]);
  });

  it("reports agentConfig for a specialist that is not known, with a suggestion; settings must be objects", () => {
    const known = new Set(["development-agent", "refactor-agent"]);
    const settings = { agentConfig: { "refactor-agnet": { maxLines: 3 }, "development-agent": {} } };
    expect(problemsOf([story(settings)], {}, known)).toEqual([
      'prd/x.json: $.userStories[0].agentConfig["refactor-agnet"]: "refactor-agnet" is not a known specialist (did you mean "refactor-agent"?) (known: development-agent, refactor-agent)',
    ]);
    expect(problemsOf([story({ agentConfig: { "refactor-agent": 3 } })])).toHaveLength(1);
  });

  it("warns about agentConfig for a specialist no step of the story routes to; the PRD stays usable", () => {
    const { prd, problems } = validatePrd(
      {
        project: "P",
        userStories: [
          story({ mavenSteps: [3, 5], agentConfig: { "refactor-agnet": { maxLines: 3 }, "quality-agent": {} } }),
        ],
      },
      { file: FILE, routing },
    );
    expect(problems).toEqual([
      {
        file: FILE,
        path: '$.userStories[0].agentConfig["refactor-agnet"]',
        message:
          'no step of this story routes to "refactor-agnet" (did you mean "refactor-agent"?), so these settings have no effect (steps: 3 → refactor-agent; 5 → quality-agent)',
        severity: "warning",
      },
    ]);
    expect(prd?.userStories[0]?.agentConfig).toEqual({ "refactor-agnet": { maxLines: 3 }, "quality-agent": {} });
    // Known specialists: an unknown name is an error, not also a warning.
    expect(problemsOf([story({ agentConfig: { "refactor-agnet": {} } })], {}, new Set(["development-agent"]))).toEqual([
      'prd/x.json: $.userStories[0].agentConfig["refactor-agnet"]: "refactor-agnet" is not a known specialist (known: development-agent)',
    ]);
  });

  it("reports schema errors with paths, in plain words", () => {
    expect(problemsOf([story({ mavenSteps: [0, 12], priority: "high", title: undefined })], { project: 7 })).toEqual([
      "prd/x.json: $.project: expected string, found number 7",
      "prd/x.json: $.userStories[0].mavenSteps[0]: expected a number >= 1, found number 0",
      "prd/x.json: $.userStories[0].mavenSteps[1]: expected a number <= 11, found number 12",
      'prd/x.json: $.userStories[0].priority: expected number, found the string "high"',
      "prd/x.json: $.userStories[0].title: required string is missing",
    ]);
  });

  it("reports an empty mavenSteps and a top level that is not an object", () => {
    expect(problemsOf([story({ mavenSteps: [] })])).toEqual([
      "prd/x.json: $.userStories[0].mavenSteps: expected an array with at least 1 item(s)",
    ]);
    const { problems } = validatePrd([1, 2], { file: FILE, routing });
    expect(problems.map((p) => `${p.path}: ${p.message}`)).toEqual(["$: expected object, found an array"]);
  });

  it("rejects unknown keys in verify commands and scripted calls (typos would lose data)", () => {
    expect(
      problemsOf([story({ verify: [{ cmd: ["npm", "test"] }], calls: { step1: [{ tool: "t", arguments: {} }] } })]),
    ).toEqual([
      'prd/x.json: $.userStories[0].calls.step1[0]: Unrecognized key: "arguments"',
      'prd/x.json: $.userStories[0].verify[0]: Unrecognized key: "cmd"',
      "prd/x.json: $.userStories[0].verify[0].run: required array is missing",
    ]);
  });

  it("reports a verify cwd that leaves the project, and allows one above the PRD's folder inside it", () => {
    // A PRD kept in prd/ runs the project's tests from the root with "cwd": ".."; only the project bounds it.
    const { problems } = validatePrd(
      {
        project: "P",
        userStories: [
          story({
            verify: [
              { run: ["npm", "test"], cwd: "../.." },
              { run: ["x"], cwd: "/etc" },
              { run: ["y"], cwd: "pkg/../sub" },
              { run: ["z"], cwd: ".." },
            ],
          }),
        ],
      },
      { file: FILE, routing, location: { prdDir: "/home/me/app/prd", projectDir: "/home/me/app" } },
    );
    const rule =
      "cwd must be a path relative to the PRD's folder that stays inside the project (its git repository, else the folder holding .mcp.json)";
    expect(problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      `$.userStories[0].verify[0].cwd: ${rule}, found "../..": outside the project /home/me/app`,
      `$.userStories[0].verify[1].cwd: ${rule}, found "/etc": an absolute path`,
    ]);
  });

  it("still checks the other stories when one story breaks the schema", () => {
    expect(problemsOf([story({ priority: null }), story({ id: "US-2", mcpTools: { step9: [] } })])).toEqual([
      "prd/x.json: $.userStories[0].priority: expected number, found null",
      "prd/x.json: $.userStories[1].mcpTools.step9: step 9 is not in mavenSteps [1,7]",
    ]);
  });

  it("orders problems by position in the file, with index 10 after index 9", () => {
    const stories = Array.from({ length: 11 }, (_, i) => story({ id: `US-${i}`, mavenSteps: i >= 9 ? [3, 3] : [1] }));
    expect(problemsOf(stories).map((p) => p.split(": ")[1])).toEqual([
      "$.userStories[9].mavenSteps[1]",
      "$.userStories[10].mavenSteps[1]",
    ]);
  });
});

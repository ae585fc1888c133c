import { loadRoutingTable, type Prd } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { skill } from "../test-support/skill.js";
import { coverageHeadline, coverageSpecialists, prdServers } from "./coverageSpecialists.js";

const routing = loadRoutingTable();
const skills = [skill("testing", ["filesystem_read"], ["quality-agent"]), skill("audit", ["filesystem_read"])];

describe("coverageSpecialists", () => {
  it("the routed specialists, with their definitions' data and the runtime's skill rule", () => {
    const definitions = new Map([
      ["security-agent", { name: "security-agent", readOnly: true, skills: ["audit"] }],
      ["quality-agent", { name: "quality-agent", description: "tests" }],
    ]);
    const rows = coverageSpecialists({ routing, definitions, skills, configured: ["filesystem", "memory"] });
    expect(rows.map((r) => r.specialist.name)).toEqual([
      "development-agent",
      "refactor-agent",
      "quality-agent",
      "security-agent",
      "design-agent",
    ]);
    expect(rows[2]).toEqual({
      specialist: { name: "quality-agent", description: "tests", skills: ["testing"] },
      servers: ["filesystem", "memory"],
    });
    expect(rows[3]?.specialist).toEqual({ name: "security-agent", readOnly: true, skills: ["audit"] });
    expect(rows[0]?.specialist).toEqual({ name: "development-agent" });
  });

  it("with a PRD, only its specialists, each with its steps' servers", () => {
    const prd = {
      userStories: [
        { mavenSteps: [1, 8], mcpTools: { step1: ["filesystem"], step8: ["filesystem", "memory"] } },
        { mavenSteps: [1], mcpTools: { step1: ["memory"] } },
      ],
    } as unknown as Prd;
    const byPrd = prdServers(prd, routing);
    expect([...byPrd]).toEqual([
      ["development-agent", ["filesystem", "memory"]],
      ["security-agent", ["filesystem", "memory"]],
    ]);
    const rows = coverageSpecialists({ routing, definitions: new Map(), skills, configured: ["x"], byPrd });
    expect(rows.map((r) => [r.specialist.name, r.servers])).toEqual([...byPrd]);
  });

  it("coverageHeadline is the line both commands print", () => {
    expect(coverageHeadline({ reachable: 22, tools: 23, percent: (22 / 23) * 100 })).toBe(
      "Coverage: 22 of 23 tools reachable by at least one specialist (95.7%)",
    );
  });
});

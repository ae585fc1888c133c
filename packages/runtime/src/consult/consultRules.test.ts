import { isMeshflowError } from "@meshflow/core";
import { describe, expect, it } from "vitest";
import { allowedConsults, type ConsultRequest, checkConsult } from "./consultRules.js";

const request = (over: Partial<ConsultRequest>): ConsultRequest => ({
  storyId: "US-001",
  step: 7,
  chain: ["development-agent"],
  allowed: ["security-agent"],
  target: "security-agent",
  known: true,
  ...over,
});

function refusal(over: Partial<ConsultRequest>): { code: string; message: string } {
  try {
    checkConsult(request(over));
  } catch (error) {
    if (isMeshflowError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error("not refused");
}

describe("allowedConsults", () => {
  it("is the specialist's own list unless the story names one for it", () => {
    const dev = { name: "development-agent", consults: ["security-agent"] };
    expect(allowedConsults(dev, {})).toEqual(["security-agent"]);
    expect(allowedConsults(dev, { consult: { "development-agent": ["quality-agent"] } })).toEqual(["quality-agent"]);
    expect(allowedConsults(dev, { consult: { "development-agent": [] } })).toEqual([]);
    expect(allowedConsults({ name: "quality-agent" }, { consult: { "development-agent": ["x"] } })).toEqual([]);
  });
});

describe("checkConsult", () => {
  it("lets a declared consultation through", () => {
    expect(() => checkConsult(request({}))).not.toThrow();
    expect(() =>
      checkConsult(
        request({
          chain: ["development-agent", "security-agent"],
          target: "quality-agent",
          allowed: ["quality-agent"],
        }),
      ),
    ).not.toThrow();
  });

  it("refuses an undeclared specialist with consult_refused, naming who may be consulted", () => {
    expect(refusal({ target: "design-agent" })).toEqual({
      code: "consult_refused",
      message:
        'development-agent may not consult design-agent in US-001 step 7: it may consult security-agent (its "consults", or the story\'s "consult": {"development-agent": [...]})',
    });
    expect(refusal({ known: false }).message).toContain('no specialist "security-agent" is loaded');
  });

  it("refuses a cycle with consult_cycle, even when declared", () => {
    expect(
      refusal({ chain: ["quality-agent", "development-agent"], target: "quality-agent", allowed: ["quality-agent"] }),
    ).toEqual({
      code: "consult_cycle",
      message:
        "development-agent may not consult quality-agent in US-001 step 7: quality-agent → development-agent → quality-agent is a cycle",
    });
    expect(refusal({ target: "development-agent", allowed: ["development-agent"] }).code).toBe("consult_cycle");
  });

  it("refuses a third level with consult_depth", () => {
    const chain = ["development-agent", "quality-agent", "refactor-agent"];
    expect(refusal({ chain, target: "design-agent", allowed: ["design-agent"] })).toEqual({
      code: "consult_depth",
      message:
        "refactor-agent may not consult design-agent in US-001 step 7: development-agent → quality-agent → refactor-agent is already 2 consultation(s) deep (the limit is 2)",
    });
  });
});

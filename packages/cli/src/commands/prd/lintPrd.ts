import { formatJsonPath, type Prd, type RoutingTable, type Story, stepKey } from "@meshflow/core";
import type { VerifyRefusal } from "@meshflow/runtime/host";
import { isCheckable } from "./checkableCriteria.js";
import type { StepNeeds } from "./stepNeeds.js";

/** The checks of `flow prd lint`, by a stable name (`--json`'s `rule`). */
type LintRule =
  | "uncheckable-criteria"
  | "no-verify"
  | "verify-not-allowed"
  | "step-capabilities"
  | "no-plan"
  | "too-many-criteria";

/** One thing a run would likely stumble on, located in the PRD. */
export interface LintWarning {
  rule: LintRule;
  /** JSON path of the story or field, e.g. `$.userStories[0].verify`. */
  path: string;
  story: string;
  step?: number;
  message: string;
}

/** What a PRD is linted against besides itself. */
export interface LintContext {
  /** More criteria than this in one story: split it (`--max-criteria`). */
  maxCriteria: number;
  /** The project's test command (as `flow init` finds it), if it has one. */
  test: string[] | undefined;
  routing: RoutingTable;
  /** The specialists a run would load, each with whether it needs the story's calls or a model. */
  specialists: ReadonlyMap<string, { needsPlan: boolean }>;
  needs: StepNeeds;
  /** Capabilities of each server whose tools were listed; undefined: capabilities are not checked. */
  offered: ReadonlyMap<string, ReadonlySet<string>> | undefined;
  /**
   * Verify commands the tool of their step would refuse, as its stated allowlist says (`refusedVerifies`
   * over the listed servers); empty when nothing was listed.
   */
  refusals: readonly VerifyRefusal[];
  /** A model comes from the environment (`FLOW_MODEL`), as for `flow run`. */
  modelFromEnv: boolean;
}

type Check = (story: Story, at: (...path: PropertyKey[]) => string, prd: Prd, ctx: LintContext) => LintWarning[];

const criteria: Check = (story, at, _prd, ctx) => {
  const warnings: LintWarning[] = [];
  const path = at("acceptanceCriteria");
  if (!story.acceptanceCriteria.some(isCheckable))
    warnings.push({
      rule: "uncheckable-criteria",
      path,
      story: story.id,
      message: story.acceptanceCriteria.length
        ? `no acceptance criterion can be checked (each is vague or too short): name what a check sees — a command that passes, a file, a value, a message`
        : "no acceptance criteria: add criteria a check can hold the work to",
    });
  if (story.acceptanceCriteria.length > ctx.maxCriteria)
    warnings.push({
      rule: "too-many-criteria",
      path,
      story: story.id,
      message: `${story.acceptanceCriteria.length} criteria, more than ${ctx.maxCriteria} (--max-criteria): a story this large rarely fits one run; split it`,
    });
  return warnings;
};

const verify: Check = (story, at, _prd, ctx) =>
  ctx.test && !story.verify?.length
    ? [
        {
          rule: "no-verify",
          path: at("verify"),
          story: story.id,
          message: `no verify while the project has a test command: add {"run": ${JSON.stringify(ctx.test)}} so the completion gate runs the tests`,
        },
      ]
    : [];

const allowed: Check = (story, at, _prd, ctx) =>
  ctx.refusals
    .filter((r) => r.storyId === story.id)
    .map((r) => ({
      rule: "verify-not-allowed",
      path: at("verify", r.index),
      story: story.id,
      step: r.step,
      message: `${story.id}: ${r.reason}`,
    }));

const steps: Check = (story, at, prd, ctx) => {
  const warnings: LintWarning[] = [];
  const thinks = Boolean(story.model || story.harness || prd.model || prd.harness || ctx.modelFromEnv);
  story.mavenSteps.forEach((step, i) => {
    const key = stepKey(step);
    const specialist = ctx.routing.steps.get(step);
    if (specialist && ctx.specialists.get(specialist)?.needsPlan && !thinks && !story.calls?.[key]?.length)
      warnings.push({
        rule: "no-plan",
        path: at("mavenSteps", i),
        story: story.id,
        step,
        message: `step ${step} (${specialist}) has neither calls nor a model or harness, so a run blocks it: add "calls": {"${key}": [...]}, a "model" or "harness" to the story or PRD, or run with --model`,
      });
    const needs = ctx.needs.get(step) ?? [];
    const { offered } = ctx;
    if (!offered || !needs.length) return;
    const servers = story.mcpTools[key] ?? [];
    // A server whose tools could not be listed is not judged: its capabilities are unknown.
    if (servers.some((s) => !offered.has(s))) return;
    if (servers.some((s) => needs.some((c) => offered.get(s)?.has(c)))) return;
    warnings.push({
      rule: "step-capabilities",
      path: servers.length ? at("mcpTools", key) : at("mavenSteps", i),
      story: story.id,
      step,
      message: servers.length
        ? `step ${step}'s servers (${servers.join(", ")}) offer none of what it needs (${needs.join(", ")})`
        : `step ${step} has no servers, and it needs ${needs.join(" or ")}: add a server offering one to mcpTools.${key}`,
    });
  });
  return warnings;
};

/** The checks, in the order their warnings are listed per story. */
const CHECKS: readonly Check[] = [criteria, verify, allowed, steps];

/**
 * The warnings a validator cannot give, for every story that has not passed yet: no checkable
 * criterion, more criteria than `maxCriteria`, no `verify` while the project has tests, a verify command
 * its step's tool would refuse, a step whose servers offer none of what it needs, a step of a
 * specialist that needs a plan with no calls, model or harness.
 */
export function lintPrd(prd: Prd, ctx: LintContext): LintWarning[] {
  const warnings: LintWarning[] = [];
  prd.userStories.forEach((story, index) => {
    if (story.passes) return;
    const at = (...path: PropertyKey[]) => formatJsonPath(["userStories", index, ...path]);
    for (const check of CHECKS) warnings.push(...check(story, at, prd, ctx));
  });
  return warnings;
}

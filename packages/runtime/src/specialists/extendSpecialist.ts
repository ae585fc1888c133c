import type { StepOutcome } from "@meshflow/core";
import {
  defineSpecialist,
  type Specialist,
  type SpecialistDefinition,
  type SpecialistInfo,
  type ThinkContext,
} from "./defineSpecialist.js";
import { scriptedThink } from "./scriptedThink.js";
import { type ConfigSchema, mergeConfig, type SpecialistConfig } from "./specialistConfig.js";

/** The think() a shipped specialist had, as an override receives it. */
export type BaseThink<C extends SpecialistConfig = SpecialistConfig> = (ctx: ThinkContext<C>) => Promise<StepOutcome>;

/** What {@link extendSpecialist} may change; everything left out is the base's. */
export interface SpecialistOverrides<C extends SpecialistConfig = SpecialistConfig>
  extends Partial<Omit<SpecialistInfo, "name">> {
  /** A new name (its folder's name when loaded from `agents/`); default: the base's. */
  name?: string;
  /** Settings merged over the base's `config` (objects deeply; arrays and values replace). */
  config?: SpecialistConfig;
  /** Replaces the base's schema (the merged settings must pass it). */
  configSchema?: ConfigSchema<C>;
  /** Replaces the base's `verifyTool` (the tool its think() runs the story's verify commands through). */
  verifyTool?: SpecialistDefinition<C>["verifyTool"];
  /**
   * Replaces think(); `base` is the base's own think() (or the scripted-calls plan when it has none), so
   * an override can run it and adjust its outcome.
   */
  think?: (ctx: ThinkContext<C>, base: BaseThink<C>) => Promise<StepOutcome>;
}

/**
 * Customises a shipped specialist without copying it: new settings, name, steps, skills or a think()
 * that wraps the base's. The result is validated like any `defineSpecialist` result (settings too).
 *
 * @example
 * // agents/strict-security-agent/agent.ts
 * import securityAgent from "../security-agent/agent.js";
 * export default extendSpecialist(securityAgent, {
 *   name: "strict-security-agent",
 *   config: { failOn: "low", extraRules: [{ id: "todo-secret", kind: "risky", severity: "low", pattern: "TODO.*secret" }] },
 * });
 */
export function extendSpecialist<C extends SpecialistConfig = SpecialistConfig>(
  base: Specialist<C>,
  overrides: SpecialistOverrides<C>,
): Specialist<C> {
  const { think: overrideThink, config, ...rest } = overrides;
  // The base was defined for settings of type C, which the runtime validates before a step runs.
  const baseThink = (base.think ?? scriptedThink) as BaseThink<C>;
  const definition = {
    ...base,
    ...rest,
    name: overrides.name ?? base.name,
    description: overrides.description ?? base.description,
    ...(config || base.config ? { config: mergeConfig(base.config ?? {}, config) } : {}),
    ...(overrideThink ? { think: (ctx: ThinkContext<C>) => overrideThink(ctx, baseThink) } : {}),
  };
  return defineSpecialist<C>(definition as SpecialistDefinition<C>);
}

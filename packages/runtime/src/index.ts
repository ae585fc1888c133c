/**
 * The agent developer's API of meshflow: define or extend a specialist, its think() context, settings
 * and helpers. Hosts that run PRDs use `@meshflow/runtime/host`.
 */
/** zod, the version the runtime validates with: specialists build their config schemas with it. */
export { z } from "zod";
export type { CallEvidence } from "./CallEvidence.js";
export type {
  ConsultAnswer,
  ConsultationInfo,
  ConsultOptions,
} from "./specialists/Consultation.js";
export {
  defineSpecialist,
  type Specialist,
  type SpecialistDefinition,
  type SpecialistInfo,
  type SpecialistLog,
  type SpecialistModel,
  type StepMemory,
  type StepView,
  type ThinkContext,
  type WorkOptions,
} from "./specialists/defineSpecialist.js";
export { type BaseThink, extendSpecialist, type SpecialistOverrides } from "./specialists/extendSpecialist.js";
export {
  type DoneWork,
  /** @public for a project's own specialists (see README) */
  defaultThink,
  /** @public for a project's own specialists (see README) */
  modelEvidence,
  scriptedThenModel,
} from "./specialists/scriptedThenModel.js";
export {
  /** @public for a project's own specialists (see README) */
  resultText,
  scriptedThink,
} from "./specialists/scriptedThink.js";
export {
  type ConfigIssue,
  type ConfigSchema,
  loadSpecialistConfig,
  /** @public for a project's own specialists (see README) */
  mergeConfig,
  type SpecialistConfig,
} from "./specialists/specialistConfig.js";
export type { Learning, Recall, RunMemory, StoryRecall } from "./workflow/RunMemory.js";

// `@meshflow/runtime/prdLock`: whether a PRD is free to run, without loading the runtime (no zod, no
// xstate), so `flow run` refuses a PRD another run holds before anything heavy loads.

export { assertPrdFree } from "./store/assertPrdFree.js";

export type { ExitCode } from "./exitCodes.js";
export {
  /** @public embeddable */
  buildProgram,
  /** @public embeddable */
  main,
} from "./main.js";
export type { Output } from "./output.js";

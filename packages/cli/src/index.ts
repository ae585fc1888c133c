export { EXIT, type ExitCode, exitCodeFor } from "./exitCodes.js";
export { buildProgram, main } from "./main.js";
export { type Output, processOutput } from "./output.js";

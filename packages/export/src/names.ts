// `@meshflow/export/names`: the harness and format names alone, without the writers, so the CLI's
// options can offer them without loading the export package for every `flow --help`.

export { AGENT_HARNESSES, OUTPUT_FORMATS } from "./harness/harnessNames.js";

import type { AgentHarness } from "./AgentHarness.js";
import { claudeCodeWriter } from "./claudeCode.js";
import { copilotWriter } from "./copilot.js";
import type { HarnessWriter } from "./HarnessWriter.js";
import { opencodeWriter } from "./opencode.js";

const WRITERS: Readonly<Record<AgentHarness, HarnessWriter>> = {
  "claude-code": claudeCodeWriter,
  opencode: opencodeWriter,
  copilot: copilotWriter,
};

/** The writer of a harness. */
export function harnessWriter(harness: AgentHarness): HarnessWriter {
  return WRITERS[harness];
}

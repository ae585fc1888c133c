import { claudeCode } from "./adapters/claudeCode.js";
import { codex } from "./adapters/codex.js";
import { opencode } from "./adapters/opencode.js";
import type { HarnessAdapter } from "./HarnessAdapter.js";

/** The harnesses meshflow knows, by name: adding one is one adapter file and one entry here. */
export const HARNESSES: ReadonlyMap<string, HarnessAdapter> = new Map(
  [claudeCode, opencode, codex].map((adapter) => [adapter.name, adapter]),
);

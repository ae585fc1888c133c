import type { UniversalTool } from "@meshflow/core";
import type { SpecialistInfo } from "@meshflow/resolver";

/** A specialist as the harness writers see it: its definition's data plus the instructions to write out. */
export interface ExportSpecialist extends SpecialistInfo {
  description: string;
  /** Built-in harness tools its definition asks for (`harnessTools`). */
  harnessTools?: readonly UniversalTool[];
  /** The agent's prompt: its `instructions` field, else `instructions.md` beside its agent file, else its description. */
  instructions: string;
  /** Where {@link instructions} came from: `instructions` (the field), the file's path, or `description`. */
  instructionsFrom: string;
}

import { appendOwnFile, MeshflowError } from "@meshflow/core";
import { readNdjson } from "../internal/ndjson.js";
import { type ApprovalBook, type ApprovalLine, ApprovalLineSchema } from "./ApprovalBook.js";

/**
 * A run's approvals book as `approvals.ndjson` in its run folder, beside its journal: one JSON line
 * per request or decision, appended (one `write` on an `O_APPEND` file per line, so the run's process
 * and `flow approve` may both append), never rewritten, owner-only, never through a link.
 */
export class FileApprovalBook implements ApprovalBook {
  readonly file: string;

  constructor(file: string) {
    this.file = file;
  }

  async lines(): Promise<ApprovalLine[]> {
    return readNdjson(this.file).map((value, i) => {
      const parsed = ApprovalLineSchema.safeParse(value);
      if (!parsed.success)
        throw new MeshflowError(
          "internal",
          `${this.file}: line ${i + 1}: not an approval request or decision: ${parsed.error.issues[0]?.message ?? "invalid"}`,
        );
      return parsed.data;
    });
  }

  async append(line: ApprovalLine): Promise<void> {
    appendOwnFile(this.file, `${JSON.stringify(line)}\n`);
  }
}

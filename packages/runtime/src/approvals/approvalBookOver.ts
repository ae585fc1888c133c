import { MeshflowError } from "@meshflow/core";
import { type ApprovalBook, type ApprovalLine, ApprovalLineSchema } from "./ApprovalBook.js";

/** Where a book's lines are kept as plain values (a Redis list of a queued run). */
export interface ApprovalLineStore {
  lines(): Promise<unknown[]>;
  append(value: unknown): Promise<void>;
}

/**
 * An approvals book over a store of plain values: each line validated as a request or a decision
 * when read (`where` names the store in the error of one that is not).
 */
export function approvalBookOver(store: ApprovalLineStore, where: string): ApprovalBook {
  return {
    async lines(): Promise<ApprovalLine[]> {
      return (await store.lines()).map((value, i) => {
        const parsed = ApprovalLineSchema.safeParse(value);
        if (!parsed.success)
          throw new MeshflowError(
            "internal",
            `${where}: line ${i + 1}: not an approval request or decision: ${parsed.error.issues[0]?.message ?? "invalid"}`,
          );
        return parsed.data;
      });
    },
    append: (line) => store.append(line),
  };
}

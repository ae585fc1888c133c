import type { ErrorCode } from "@meshflow/core";

/** One call as the story's evidence records it. */
export interface CallEvidence {
  key: string;
  name: string;
  tool?: string;
  argsDigest: string;
  resultDigest?: string;
  isError: boolean;
  code?: ErrorCode;
  destructive?: boolean;
  replayed?: boolean;
}

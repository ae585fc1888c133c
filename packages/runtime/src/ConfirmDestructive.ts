/** A destructive call about to run, as {@link ConfirmDestructive} is asked about it. */
export interface DestructiveCall {
  runId: string;
  storyId: string;
  step: number;
  specialist: string;
  /** Qualified tool name. */
  tool: string;
  args: Record<string, unknown>;
  /** The call's idempotency key. */
  key: string;
}

/** The answer about one destructive call: run it, or refuse it with a code and a reason. */
export type DestructiveDecision =
  | { allow: true }
  | { allow: false; code: "confirmation_declined" | "confirmation_required"; reason: string };

/**
 * Asked before every destructive call of a run (`flow run --confirm-destructive`): a person on a
 * terminal answers, off a terminal every such call is refused. Calls replayed from the journal are
 * not asked about: they do not run again.
 */
export type ConfirmDestructive = (call: DestructiveCall) => Promise<DestructiveDecision>;

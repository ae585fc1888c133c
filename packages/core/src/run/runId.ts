const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$/;

/**
 * True for a run id a user may give (`--run-id`, `flow resume <runId>`): letters, digits, `.`, `_`,
 * `-`, at most 80, not starting with a symbol. It names a folder of the run store.
 */
export function isRunId(runId: string): boolean {
  return RUN_ID.test(runId);
}

let lastMs = Number.NaN;
let lastIso = "";

/**
 * The `time` of a run event made now (ISO 8601). A fast run makes many events in one millisecond: the
 * string is made once per millisecond.
 */
export function eventTime(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

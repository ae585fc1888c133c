/** The ids of a span as the W3C Trace Context `traceparent` header carries them. */
export interface TraceParent {
  traceId: string;
  spanId: string;
  /** Bit 0: sampled. */
  flags: number;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** `00-<trace id>-<span id>-<flags>` (W3C Trace Context, version 00). */
export function formatTraceparent(parent: TraceParent): string {
  return `00-${parent.traceId}-${parent.spanId}-${parent.flags.toString(16).padStart(2, "0")}`;
}

/** The ids of a `traceparent` value, or undefined for one that is malformed or all zeros. */
export function parseTraceparent(value: string | undefined): TraceParent | undefined {
  const match = value ? TRACEPARENT.exec(value.trim().toLowerCase()) : null;
  if (!match?.[1] || !match[2] || !match[3]) return undefined;
  if (/^0+$/.test(match[1]) || /^0+$/.test(match[2])) return undefined;
  return { traceId: match[1], spanId: match[2], flags: Number.parseInt(match[3], 16) };
}

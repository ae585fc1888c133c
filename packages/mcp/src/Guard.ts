import type { ErrorCode } from "@meshflow/core";
import type { Clock, EventSink } from "./types.js";

/**
 * Default per-minute call threshold: crossing it locks the guard. High enough that a large PRD run
 * (6,000 scripted calls in a minute) passes; a looping agent still trips it.
 */
export const DEFAULT_CALLS_PER_MINUTE = 6_000;
/** What a rate-limit refusal tells the user to change, unless the guard's owner says otherwise. */
const DEFAULT_RATE_LIMIT_HINT = "raise it with --calls-per-minute <n>, or turn it off with --calls-per-minute 0";
const WINDOW_MS = 60_000;

/** A snapshot of the guard. */
export interface GuardState {
  /** When false, the rate limit is off; a lock (emergency stop) still refuses calls. */
  enabled: boolean;
  locked: boolean;
  lockReason: string | null;
  /** ISO time of the lock, or null. */
  lockedAt: string | null;
  callsPerMinuteThreshold: number;
  /** Guarded calls admitted in the last 60 s. */
  callsInLastMinute: number;
  /** Tools (qualified names) that are never guarded. */
  unguardedTools: string[];
}

/** Options of {@link Guard}. */
export interface GuardOptions {
  enabled?: boolean;
  /** Guarded calls allowed in any 60 s window; one more locks the guard (default 6,000). */
  callsPerMinute?: number;
  /** Appended to a rate-limit refusal: which setting to change (default {@link DEFAULT_RATE_LIMIT_HINT}). */
  rateLimitHint?: string;
  /** Qualified names that still work while locked and are not counted (diagnose, unlock…). */
  unguardedTools?: Iterable<string>;
  /** Epoch ms (default `Date.now`); injectable so rate windows are testable without sleeping. */
  clock?: Clock;
  /** Receives `guard.locked` / `guard.unlocked`. */
  onEvent?: EventSink;
}

/** The verdict on one call. */
export type GuardCheck = { allowed: true } | { allowed: false; code: ErrorCode; reason: string };

const ALLOWED: GuardCheck = { allowed: true };

/**
 * Circuit breaker and panic button for tool calls: a lock refuses every guarded call with its
 * reason; crossing the per-minute threshold locks automatically; emergency stop and unlock are
 * explicit operations.
 */
export class Guard {
  private enabled: boolean;
  private threshold: number;
  private locked = false;
  private lockReason: string | null = null;
  private lockedAt: number | null = null;
  private readonly unguarded: Set<string>;
  private readonly clock: Clock;
  private readonly onEvent: EventSink | undefined;
  private readonly hint: string;
  /** Times of the admitted calls of the last 60 s, oldest first, from index `head` on (a queue). */
  private times: number[] = [];
  private head = 0;

  constructor(options: GuardOptions = {}) {
    this.enabled = options.enabled ?? true;
    this.threshold = positive(options.callsPerMinute ?? DEFAULT_CALLS_PER_MINUTE);
    this.unguarded = new Set(options.unguardedTools ?? []);
    this.clock = options.clock ?? Date.now;
    this.onEvent = options.onEvent;
    this.hint = options.rateLimitHint ?? DEFAULT_RATE_LIMIT_HINT;
  }

  /** True for tools the guard never refuses. */
  isUnguarded(tool: string): boolean {
    return this.unguarded.has(tool);
  }

  /**
   * Admits or refuses one call of `tool`: locked → `guard_locked`; one call over the per-minute
   * threshold → the guard locks itself and refuses with `rate_limit_exceeded`.
   */
  check(tool: string): GuardCheck {
    if (this.unguarded.has(tool)) return ALLOWED;
    if (this.locked) return { allowed: false, code: "guard_locked", reason: this.lockReason ?? "locked" };
    if (!this.enabled) return ALLOWED;
    const now = this.clock();
    this.expire(now);
    if (this.times.length - this.head >= this.threshold) {
      const reason = `rate limit exceeded: more than ${this.threshold} calls in one minute (${this.hint})`;
      this.lock(reason, true);
      return { allowed: false, code: "rate_limit_exceeded", reason };
    }
    this.times.push(now);
    return ALLOWED;
  }

  /**
   * The lock alone, without counting a call: what is asked again when an admitted call is about to be
   * sent, so an emergency stop between admission and sending still refuses it.
   */
  checkLock(tool: string): GuardCheck {
    if (this.unguarded.has(tool) || !this.locked) return ALLOWED;
    return { allowed: false, code: "guard_locked", reason: this.lockReason ?? "locked" };
  }

  /** Locks the guard: every guarded call is refused with `reason` until {@link unlock}. */
  emergencyStop(reason = "emergency stop"): void {
    this.lock(reason, false);
  }

  /** Unlocks the guard and starts a fresh rate window. */
  unlock(): void {
    const wasLocked = this.locked;
    this.locked = false;
    this.lockReason = null;
    this.lockedAt = null;
    this.resetWindow();
    if (wasLocked) this.onEvent?.({ type: "guard.unlocked", time: new Date(this.clock()).toISOString() });
  }

  /** Turns the rate limit on or off (a lock stays in force either way). */
  setEnabled(enabled: boolean): void {
    this.enabled = enabled;
    this.resetWindow();
  }

  /** Changes the per-minute threshold (the window starts afresh). */
  setCallsPerMinute(callsPerMinute: number): void {
    this.threshold = positive(callsPerMinute);
    this.resetWindow();
  }

  /** A snapshot of the guard's state. */
  state(): GuardState {
    this.expire(this.clock());
    const recent = this.times.length - this.head;
    return {
      enabled: this.enabled,
      locked: this.locked,
      lockReason: this.lockReason,
      lockedAt: this.lockedAt === null ? null : new Date(this.lockedAt).toISOString(),
      callsPerMinuteThreshold: this.threshold,
      callsInLastMinute: recent,
      unguardedTools: [...this.unguarded],
    };
  }

  private lock(reason: string, automatic: boolean): void {
    this.locked = true;
    this.lockReason = reason;
    this.lockedAt = this.clock();
    this.onEvent?.({ type: "guard.locked", time: new Date(this.lockedAt).toISOString(), reason, automatic });
  }

  private resetWindow(): void {
    this.times = [];
    this.head = 0;
  }

  /** Drops calls older than the window; compacts the queue now and then so memory stays bounded. */
  private expire(now: number): void {
    const times = this.times;
    while (this.head < times.length && now - (times[this.head] ?? 0) >= WINDOW_MS) this.head++;
    if (this.head > 1024 && this.head * 2 > times.length) {
      this.times = times.slice(this.head);
      this.head = 0;
    }
  }
}

function positive(n: number): number {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`callsPerMinute must be a positive integer, got ${n}`);
  return n;
}

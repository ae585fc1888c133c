import { eventTime, type RunEvent, type ToolDescriptor } from "@meshflow/core";
import {
  type ApprovalBook,
  type ApprovalRequest,
  approvalLedger,
  decisionFor,
  latestDecision,
} from "./ApprovalBook.js";
import { type ApprovalPolicy, approvalReason } from "./ApprovalPolicy.js";
import { maskArguments } from "./maskArguments.js";

/** How often a process that waits for a decision (`--wait-for-approval`) reads the book. */
const POLL_MS = 250;

/** A call about to run, as the gate is asked about it. */
export interface ApprovalCall {
  runId: string;
  key: string;
  storyId: string;
  step: number;
  consult?: string;
  specialist: string;
  tool: ToolDescriptor;
  args: Record<string, unknown>;
  argsDigest: string;
}

/** The gate's answer: run the call, or not (denied, or still undecided when the run stops). */
export type ApprovalVerdict =
  | { allow: true }
  | { allow: false; code: "approval_denied" | "approval_required"; reason: string };

/** What an {@link ApprovalGate} needs. */
export interface ApprovalGateOptions {
  policy: ApprovalPolicy;
  /** Where requests and decisions are kept; absent (a store that keeps none): such calls are refused. */
  book: ApprovalBook | undefined;
  emit(event: RunEvent): void;
  /** Masks the MCP config's secrets in text (the plane's mask). */
  mask?: (text: string) => string;
  /** Capability ids of a tool, when the catalog knows them. */
  capabilities?: (qualifiedName: string) => readonly string[];
  /**
   * How long a waiting call waits for its decision in this process (`--wait-for-approval`), in ms;
   * `Infinity`: until decided; 0 or absent: not at all (the run pauses once nothing else can go on).
   */
  waitMs?: number;
}

/** A call parked at the gate. */
interface Parked {
  request: ApprovalRequest;
  /** The process still waits for its decision (within `--wait-for-approval`). */
  waiting: boolean;
}

/**
 * The approvals of one run: asked before each call (after the journal: a replayed call is never asked
 * about), it lets through what needs no approval and what a person approved for exactly these
 * arguments, refuses what they denied (`approval_denied`, with their reason), and parks the rest: the
 * request goes into the run's approvals book and an `approval.requested` event, and the call waits
 * (its story is `awaiting_approval`) until a decision comes (`--wait-for-approval`) or the run stops.
 * The session pauses the run (exit 4) when every story in flight waits ({@link stuck}).
 */
export class ApprovalGate {
  readonly #options: ApprovalGateOptions;
  readonly #parked = new Map<string, Parked>();
  #changed: { promise: Promise<void>; resolve: () => void } | undefined;

  constructor(options: ApprovalGateOptions) {
    this.#options = options;
  }

  /** Resolves at the next change of what waits (a call parked, decided, or done waiting). */
  changed(): Promise<void> {
    if (!this.#changed) {
      let resolve = () => {};
      const promise = new Promise<void>((r) => {
        resolve = r;
      });
      this.#changed = { promise, resolve };
    }
    return this.#changed.promise;
  }

  #notify(): void {
    const changed = this.#changed;
    this.#changed = undefined;
    changed?.resolve();
  }

  /** True when each of these stories has a call waiting that this process no longer waits for. */
  stuck(storyIds: readonly string[]): boolean {
    if (!storyIds.length) return false;
    return storyIds.every((id) => {
      const calls = [...this.#parked.values()].filter((p) => p.request.storyId === id);
      return calls.length > 0 && calls.every((p) => !p.waiting);
    });
  }

  /** The requests parked now (for the pause's message). */
  parked(): ApprovalRequest[] {
    return [...this.#parked.values()].map((p) => p.request);
  }

  /** Asks about one call; `signal` ends a wait (the run stops: the call is not run, not concluded). */
  async check(call: ApprovalCall, signal: AbortSignal): Promise<ApprovalVerdict> {
    const { policy, book, capabilities } = this.#options;
    const rule = approvalReason(policy, call.tool, call.args, capabilities?.(call.tool.qualifiedName) ?? []);
    if (rule === undefined) return { allow: true };
    if (!book)
      return {
        allow: false,
        code: "approval_required",
        reason: `it needs a person's approval (${rule}), and this run's store keeps no approvals`,
      };
    const { decisions } = approvalLedger(await book.lines());
    const decided = decisionFor(decisions, call.key, call.argsDigest);
    if (decided) return this.#apply(call, decided);
    const stale = latestDecision(decisions, call.key);
    const request: ApprovalRequest = {
      type: "requested",
      time: eventTime(),
      key: call.key,
      storyId: call.storyId,
      step: call.step,
      ...(call.consult ? { consult: call.consult } : {}),
      specialist: call.specialist,
      tool: call.tool.qualifiedName,
      args: maskArguments(call.args, this.#options.mask),
      argsDigest: call.argsDigest,
      rule,
    };
    await book.append(request);
    this.#options.emit({
      type: "approval.requested",
      time: request.time,
      runId: call.runId,
      storyId: call.storyId,
      step: call.step,
      ...(call.consult ? { consult: call.consult } : {}),
      key: call.key,
      tool: request.tool,
      specialist: call.specialist,
      args: request.args,
      argsDigest: call.argsDigest,
      rule,
      ...(stale ? { stale: { argsDigest: stale.argsDigest, by: stale.by } } : {}),
    });
    const waitMs = this.#options.waitMs ?? 0;
    const parked: Parked = { request, waiting: waitMs > 0 };
    this.#parked.set(call.key, parked);
    this.#notify();
    try {
      const found = await this.#wait(call, parked, waitMs, signal);
      return found
        ? this.#apply(call, found)
        : {
            allow: false,
            code: "approval_required",
            reason: `it waits for a person's approval (${rule}); decide with: flow approve ${call.runId} ${call.key}`,
          };
    } finally {
      this.#parked.delete(call.key);
      this.#notify();
    }
  }

  /** Waits for a decision while this process may (polling the book), then for the run to stop. */
  async #wait(call: ApprovalCall, parked: Parked, waitMs: number, signal: AbortSignal) {
    const deadline = Date.now() + waitMs;
    while (!signal.aborted) {
      if (parked.waiting && Date.now() >= deadline) {
        parked.waiting = false;
        this.#notify();
      }
      await pause(parked.waiting ? POLL_MS : undefined, signal);
      if (signal.aborted) break;
      const lines = (await this.#options.book?.lines()) ?? [];
      const { decisions } = approvalLedger(lines);
      const found = decisionFor(decisions, call.key, call.argsDigest);
      if (found) return found;
    }
    return undefined;
  }

  #apply(call: ApprovalCall, decided: { approved: boolean; by: string; reason?: string | undefined }): ApprovalVerdict {
    this.#options.emit({
      type: "approval.decided",
      time: eventTime(),
      runId: call.runId,
      storyId: call.storyId,
      step: call.step,
      ...(call.consult ? { consult: call.consult } : {}),
      key: call.key,
      tool: call.tool.qualifiedName,
      approved: decided.approved,
      by: decided.by,
      ...(decided.reason !== undefined ? { reason: decided.reason } : {}),
    });
    if (decided.approved) return { allow: true };
    return {
      allow: false,
      code: "approval_denied",
      reason: `approval denied by ${decided.by}${decided.reason ? `: ${decided.reason}` : ""}`,
    };
  }
}

/** Resolves after `ms` (undefined: never) or once `signal` aborts, whichever is first. */
function pause(ms: number | undefined, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = ms === undefined ? undefined : setTimeout(done, ms);
    function done() {
      if (timer) clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

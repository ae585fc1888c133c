import { createHash, randomBytes } from "node:crypto";
import { canonicalJson, type ToolDescriptor } from "@meshflow/core";
import type { Clock } from "./types.js";

/** How long a confirmation token is valid. */
const CONFIRMATION_TTL_MS = 60_000;

/** A token that allows one call of one tool with exactly the arguments it was issued for. */
export interface ConfirmationToken {
  token: string;
  /** Epoch ms after which the token is refused. */
  expiresAt: number;
  tool: string;
  /** SHA-256 (hex) of the canonical JSON of the arguments. */
  argsSha256: string;
}

/** Why a token was refused. */
export type TokenProblem = "unknown" | "used" | "expired" | "wrong_tool" | "args_mismatch";

/** The verdict on a presented token. */
export type TokenCheck = { ok: true } | { ok: false; problem: TokenProblem; message: string };

/** Options of {@link ConfirmationGate}. */
export interface ConfirmationGateOptions {
  /** Token lifetime (default 60 s). */
  ttlMs?: number;
  /** Qualified names that need confirmation even without `destructiveHint`. */
  alwaysConfirm?: Iterable<string>;
  /** Epoch ms (default `Date.now`); injectable so expiry is testable without sleeping. */
  clock?: Clock;
}

/** SHA-256 (hex) of the canonical JSON of `args` (object keys sorted at every level). */
export function argsDigest(args: unknown): string {
  return createHash("sha256").update(canonicalJson(args)).digest("hex");
}

/** Spent tokens are remembered this long after expiry, so a replay says "already used", not "unknown". */
const SPENT_MEMORY_MS = 10 * 60_000;

/**
 * Two-step gate for destructive tools on callers that do not read annotations: a first call gets a
 * token bound to the tool and the SHA-256 of its canonical arguments; the token allows one call,
 * for 60 s, with exactly those arguments.
 */
export class ConfirmationGate {
  private readonly ttlMs: number;
  private readonly always: ReadonlySet<string>;
  private readonly clock: Clock;
  private readonly live = new Map<string, ConfirmationToken>();
  /** Tokens that can no longer be used, remembered for a while so their refusal says why. */
  private readonly spent = new Map<string, { expiresAt: number; why: "used" | "expired" }>();

  constructor(options: ConfirmationGateOptions = {}) {
    this.ttlMs = options.ttlMs ?? CONFIRMATION_TTL_MS;
    this.always = new Set(options.alwaysConfirm ?? []);
    this.clock = options.clock ?? Date.now;
  }

  /** True when calls of `tool` need a token: `destructiveHint: true`, or listed in `alwaysConfirm`. */
  requiresConfirmation(tool: ToolDescriptor): boolean {
    return tool.annotations.destructiveHint === true || this.always.has(tool.qualifiedName);
  }

  /** Issues a single-use token for one call of `qualifiedName` with exactly `args`. */
  issue(qualifiedName: string, args: Record<string, unknown>): ConfirmationToken {
    this.prune();
    const issued: ConfirmationToken = {
      token: randomBytes(18).toString("base64url"),
      expiresAt: this.clock() + this.ttlMs,
      tool: qualifiedName,
      argsSha256: argsDigest(args),
    };
    this.live.set(issued.token, issued);
    return issued;
  }

  /**
   * Checks and spends a token: it must exist, be unused and unexpired, and match the tool and the
   * arguments. A presented token is spent whatever the verdict, so it can never be tried twice.
   */
  consume(token: string, qualifiedName: string, args: Record<string, unknown>): TokenCheck {
    const now = this.clock();
    const issued = this.live.get(token);
    if (!issued) {
      const gone = this.spent.get(token);
      if (gone?.why === "used")
        return {
          ok: false,
          problem: "used",
          message: "the confirmation token was already used (tokens are single use)",
        };
      if (gone?.why === "expired") return this.expired(now, gone.expiresAt);
      return { ok: false, problem: "unknown", message: "unknown confirmation token" };
    }
    this.live.delete(token);
    if (now > issued.expiresAt) {
      this.spent.set(token, { expiresAt: issued.expiresAt, why: "expired" });
      return this.expired(now, issued.expiresAt);
    }
    this.spent.set(token, { expiresAt: issued.expiresAt, why: "used" });
    if (issued.tool !== qualifiedName)
      return {
        ok: false,
        problem: "wrong_tool",
        message: `the confirmation token was issued for "${issued.tool}", not "${qualifiedName}"`,
      };
    if (issued.argsSha256 !== argsDigest(args))
      return {
        ok: false,
        problem: "args_mismatch",
        message: "the arguments differ from those the confirmation token was issued for",
      };
    return { ok: true };
  }

  private expired(now: number, expiresAt: number): TokenCheck {
    const ago = Math.max(0, Math.round((now - expiresAt) / 1000));
    return {
      ok: false,
      problem: "expired",
      message: `the confirmation token expired ${ago} s ago (tokens last ${this.ttlMs / 1000} s)`,
    };
  }

  /** Tokens issued and not yet spent or expired. */
  pending(): number {
    this.prune();
    return this.live.size;
  }

  private prune(): void {
    const now = this.clock();
    for (const [token, issued] of this.live)
      if (now > issued.expiresAt) {
        this.live.delete(token);
        this.spent.set(token, { expiresAt: issued.expiresAt, why: "expired" });
      }
    for (const [token, gone] of this.spent) if (now > gone.expiresAt + SPENT_MEMORY_MS) this.spent.delete(token);
  }
}

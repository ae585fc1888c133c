import type { IncomingMessage } from "node:http";
import { bearerToken, rebindingProblem, secretMatches } from "./httpGuards.js";

/** The hostnames every local server answers to, as {@link hostnameOf} spells them. */
const LOOPBACK_HOSTNAMES: readonly string[] = ["localhost", "127.0.0.1", "[::1]"];

/**
 * The hostnames a server bound to `host` answers to in `Host` and `Origin`: the loopback names, the
 * bound host itself (unless it means every interface, which names no one host) and `extra`
 * (`--allowed-host`).
 */
export function allowedHostnames(host: string, extra: readonly string[] = []): Set<string> {
  const allowed = new Set(LOOPBACK_HOSTNAMES);
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (bare !== "" && bare !== "0.0.0.0" && bare !== "::") allowed.add(bare.includes(":") ? `[${bare}]` : bare);
  for (const h of extra) allowed.add(h.toLowerCase());
  return allowed;
}

/** What the front checks before a server looks at a request. */
export interface FrontPolicy {
  /** Hostnames accepted in `Host` and `Origin` (see {@link allowedHostnames}). */
  allowedHostnames: ReadonlySet<string>;
  /** When set, every request must present it; without it no token is asked. */
  token?: string | undefined;
  /** Where a request presents its token (default: `Authorization: Bearer …`). */
  presentedToken?: (req: IncomingMessage) => string | undefined;
}

/** Why the front refuses a request: 403 for a foreign `Host`/`Origin`, 401 for a missing or wrong token. */
export interface FrontRefusal {
  status: 401 | 403;
  reason: string;
}

/**
 * The one front of meshflow's HTTP servers (`flow serve --http`, `flow console`, `flow dashboard`, a
 * harness step's server): `Host` and `Origin` checked against the allowed hostnames (DNS rebinding,
 * `Origin: null` refused), then the token compared in constant time. Returns the refusal, or
 * undefined when the request may go on.
 *
 * @example
 * const refusal = checkFront(req, { allowedHostnames: allowedHostnames("127.0.0.1"), token });
 * if (refusal) return res.writeHead(refusal.status).end(refusal.reason);
 */
export function checkFront(req: IncomingMessage, policy: FrontPolicy): FrontRefusal | undefined {
  const rebinding = rebindingProblem(req, policy.allowedHostnames);
  if (rebinding) return { status: 403, reason: rebinding };
  if (policy.token === undefined) return undefined;
  const presented = (policy.presentedToken ?? bearerToken)(req);
  if (!secretMatches(presented, policy.token)) return { status: 401, reason: "unauthorized" };
  return undefined;
}

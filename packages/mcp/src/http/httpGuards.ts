import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/**
 * True when `presented` equals `expected`. Both sides are hashed first, so the comparison takes the
 * same time whatever the presented secret's length or content (a plain `timingSafeEqual` of unequal
 * lengths returns early and tells the length).
 */
export function secretMatches(presented: string | undefined, expected: string): boolean {
  const a = createHash("sha256")
    .update(presented ?? "")
    .digest();
  const b = createHash("sha256").update(expected).digest();
  // Always compare (even for a missing secret) so every refusal costs the same.
  return timingSafeEqual(a, b) && presented !== undefined;
}

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(req: IncomingMessage): string | undefined {
  const match = /^Bearer[ \t]+(.+)$/i.exec((req.headers.authorization ?? "").trim());
  return match?.[1];
}

/** The hostname of a `Host` header or an `Origin` URL (IPv6 in brackets, lowercased), or undefined. */
function hostnameOf(value: string, isOrigin: boolean): string | undefined {
  try {
    return new URL(isOrigin ? value : `http://${value}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * DNS-rebinding protection: the `Host` header must name an allowed hostname, and so must `Origin`
 * when a browser sends one. A page on another site whose name resolves to this machine carries its
 * own name in both, so it is refused; so is `Origin: null` (a sandboxed frame or a `file:` page,
 * which no meshflow page is). Returns why a request is refused, or undefined.
 */
export function rebindingProblem(req: IncomingMessage, allowedHostnames: ReadonlySet<string>): string | undefined {
  const host = req.headers.host;
  if (!host) return "missing Host header";
  const hostname = hostnameOf(host, false);
  if (!hostname || !allowedHostnames.has(hostname))
    return `Host "${host}" is not allowed (allowed: ${[...allowedHostnames].join(", ")}; add one with --allowed-host)`;
  const origin = req.headers.origin;
  if (origin === "null") return 'Origin "null" is not allowed';
  if (origin !== undefined) {
    const originHost = hostnameOf(origin, true);
    if (!originHost || !allowedHostnames.has(originHost)) return `Origin "${origin}" is not allowed`;
  }
  return undefined;
}

import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/**
 * True when the request carries `Authorization: Bearer <expected>`. Both sides are hashed first, so
 * the comparison takes the same time whatever the presented token's length or content.
 */
export function bearerMatches(req: IncomingMessage, expected: string): boolean {
  const header = req.headers.authorization ?? "";
  const match = /^Bearer[ \t]+(.+)$/i.exec(header.trim());
  const presented = match?.[1] ?? "";
  const a = createHash("sha256").update(presented).digest();
  const b = createHash("sha256").update(expected).digest();
  // Always compare (even for a missing header) so every refusal costs the same.
  return timingSafeEqual(a, b) && match !== null;
}

/** The hostname of a `Host` header or an `Origin` URL (IPv6 in brackets, lowercased), or undefined. */
export function hostnameOf(value: string, isOrigin: boolean): string | undefined {
  try {
    return new URL(isOrigin ? value : `http://${value}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * DNS-rebinding protection: the `Host` header must name an allowed hostname, and so must `Origin`
 * when a browser sends one. A page on another site whose name resolves to this machine carries its
 * own name in both, so it is refused. Returns why a request is refused, or undefined.
 */
export function rebindingProblem(req: IncomingMessage, allowedHostnames: ReadonlySet<string>): string | undefined {
  const host = req.headers.host;
  if (!host) return "missing Host header";
  const hostname = hostnameOf(host, false);
  if (!hostname || !allowedHostnames.has(hostname))
    return `Host "${host}" is not allowed (allowed: ${[...allowedHostnames].join(", ")}; add one with --allowed-host)`;
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== "null") {
    const originHost = hostnameOf(origin, true);
    if (!originHost || !allowedHostnames.has(originHost)) return `Origin "${origin}" is not allowed`;
  } else if (origin === "null") return 'Origin "null" is not allowed';
  return undefined;
}

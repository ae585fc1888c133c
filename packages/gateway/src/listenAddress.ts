import { isIP } from "node:net";
import { MeshflowError } from "@meshflow/core";

/** Where `flow serve --http` listens. */
export interface ListenAddress {
  /** Host as given, IPv6 without brackets. */
  host: string;
  port: number;
}

/** The host `--http` binds when only a port is given: loopback. */
const DEFAULT_HTTP_HOST = "127.0.0.1";

/**
 * Parses `host:port`, `[v6]:port`, `:port` or `port` (the last two bind {@link DEFAULT_HTTP_HOST}).
 * Port 0 picks a free port. Anything else is a usage error naming the value.
 */
export function parseListenAddress(value: string): ListenAddress {
  const text = value.trim();
  const fail = (why: string) =>
    new MeshflowError(
      "usage",
      `--http "${value}": ${why}; expected host:port, [ipv6]:port or port (e.g. 127.0.0.1:8766)`,
    );
  let host = DEFAULT_HTTP_HOST;
  let portText = text;
  const bracketed = /^\[([^\]]+)\]:(\d+)$/.exec(text);
  if (bracketed) {
    host = bracketed[1] ?? "";
    portText = bracketed[2] ?? "";
    if (isIP(host) !== 6) throw fail(`"${host}" is not an IPv6 address`);
  } else if (text.includes(":")) {
    const at = text.lastIndexOf(":");
    const given = text.slice(0, at);
    if (given.includes(":")) throw fail("write an IPv6 address in brackets");
    if (given) host = given;
    portText = text.slice(at + 1);
  }
  if (!/^\d+$/.test(portText)) throw fail(`"${portText}" is not a port number`);
  const port = Number(portText);
  if (port > 65535) throw fail(`port ${port} is above 65535`);
  return { host, port };
}

/** True for addresses only this machine can reach: 127.0.0.0/8, ::1 and `localhost`. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "");
  if (h === "localhost" || h === "::1" || h === "0:0:0:0:0:0:0:1") return true;
  if (isIP(h) === 4) return h.startsWith("127.");
  if (h.startsWith("::ffff:")) return isLoopbackHost(h.slice(7));
  return false;
}

import { existsSync, readFileSync, statSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { extname, join, normalize, sep } from "node:path";
import { packageFile } from "@meshflow/core";

/** The built front end: `dist/web` next to the compiled server. */
export const WEB_ROOT = packageFile(import.meta.url, "dist/web");

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".json": "application/json; charset=utf-8",
};

/**
 * Serves a file of the built front end; any other path gets `index.html` (the page routes by hash).
 * Hashed assets are cached for a year, the page itself never.
 */
export function serveStatic(res: ServerResponse, pathname: string, root: string = WEB_ROOT): void {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    decoded = "/";
  }
  const clean = normalize(decoded).replace(/^([/\\])+/, "");
  let file = join(root, clean);
  if (!file.startsWith(root.endsWith(sep) ? root : root + sep) || !existsSync(file) || !statSync(file).isFile())
    file = join(root, "index.html");
  if (!existsSync(file)) {
    res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
    res.end(`the console's front end is missing (${file}): build @meshflow/console`);
    return;
  }
  const body = readFileSync(file);
  const asset = file.includes(`${sep}assets${sep}`);
  res.writeHead(200, {
    "content-type": TYPES[extname(file)] ?? "application/octet-stream",
    "content-length": body.length,
    "cache-control": asset ? "public, max-age=31536000, immutable" : "no-store",
    "x-content-type-options": "nosniff",
    "content-security-policy":
      "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
  });
  res.end(body);
}

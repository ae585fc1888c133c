import { createRequire } from "node:module";

type JsoncParser = typeof import("jsonc-parser");

let loaded: JsoncParser | undefined;

/**
 * jsonc-parser, loaded on first use: the write-back's general path (a PRD that is no longer the bytes
 * the run last read or wrote) and `flow reset` need it; a run whose PRD nobody edited does not.
 */
export function jsoncParser(): JsoncParser {
  loaded ??= createRequire(import.meta.url)("jsonc-parser") as JsoncParser;
  return loaded;
}

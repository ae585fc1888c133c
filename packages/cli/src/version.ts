import { createRequire } from "node:module";

/**
 * The package's version, read through its own name (`@meshflow/cli/package.json` is exported): found
 * the same from sources and from the bundle, without loading `@meshflow/core` for every `--version`.
 */
export function cliVersion(): string {
  return (createRequire(import.meta.url)("@meshflow/cli/package.json") as { version: string }).version;
}

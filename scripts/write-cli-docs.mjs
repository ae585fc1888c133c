#!/usr/bin/env node
// Regenerates docs/cli.md from the built `flow` binary's --help (run `npm run docs:cli` after `npm run build`).
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { CLI_REFERENCE_PATH, cliReference } from "./cliReference.mjs";

writeFileSync(fileURLToPath(new URL(`../${CLI_REFERENCE_PATH}`, import.meta.url)), await cliReference());
console.log(`wrote ${CLI_REFERENCE_PATH}`);

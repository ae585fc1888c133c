#!/usr/bin/env node
// Regenerates prd/prd.schema.json from the zod schema in @meshflow/core (run `npm run schema`).
import { rename, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { PRD_SCHEMA_PATH, prdJsonSchemaText } from "@meshflow/core";

const target = fileURLToPath(new URL(`../${PRD_SCHEMA_PATH}`, import.meta.url));
const temp = `${target}.${process.pid}.tmp`;
await writeFile(temp, prdJsonSchemaText());
await rename(temp, target);
console.log(`wrote ${PRD_SCHEMA_PATH}`);

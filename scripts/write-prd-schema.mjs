#!/usr/bin/env node
// Regenerates prd/prd.schema.json from the zod schema in @meshflow/core (run `npm run schema`).
import { fileURLToPath } from "node:url";
import { PRD_SCHEMA_PATH, prdJsonSchemaText, writeFileAtomic } from "@meshflow/core";

writeFileAtomic(fileURLToPath(new URL(`../${PRD_SCHEMA_PATH}`, import.meta.url)), prdJsonSchemaText());
console.log(`wrote ${PRD_SCHEMA_PATH}`);

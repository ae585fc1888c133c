import { dirname, resolve } from "node:path";
import {
  hasErrors,
  type McpConfig,
  type Prd,
  type Problem,
  planPrd,
  projectRoot,
  type RoutingTable,
  validatePrd,
} from "@meshflow/core";

/** What a PRD made by `flow prd` is checked against before it is written. */
export interface PrdCheckContext {
  routing: RoutingTable;
  /** The specialists a run would load: every step must route to one of them. */
  specialists: ReadonlySet<string>;
  /** The MCP config whose servers `mcpTools` may name (none found: any name is accepted). */
  mcpConfig: McpConfig;
}

/** A PRD value checked as `flow validate` checks a file: the typed PRD when it holds, and every problem. */
export interface PrdCheck {
  prd: Prd | undefined;
  problems: Problem[];
}

/**
 * Checks a PRD value that is about to become `file`: the schema, ids, step keys and routing
 * (`validatePrd`, with `verify` cwds judged from the file's folder), then the `mcpTools` server names
 * against the MCP config when one was found.
 */
export function checkPrd(file: string, value: unknown, context: PrdCheckContext): PrdCheck {
  const prdDir = dirname(resolve(file));
  const { prd, problems } = validatePrd(value, {
    file,
    routing: context.routing,
    specialists: context.specialists,
    location: { prdDir, projectDir: projectRoot(prdDir) },
  });
  if (prd && context.mcpConfig.file) {
    const planned = planPrd(prd, { file, routing: context.routing, mcpConfig: context.mcpConfig });
    problems.push(...planned.problems.filter((p) => p.file === file && p.path.includes(".mcpTools.")));
  }
  return { prd: hasErrors(problems) ? undefined : prd, problems };
}

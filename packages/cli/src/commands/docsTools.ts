import { existsSync, readFileSync } from "node:fs";
import { relative, resolve, sep } from "node:path";
import { MeshflowError, writeFileAtomic } from "@meshflow/core";
import { buildInventory, renderInventory } from "@meshflow/export";
import { coverageHeadline } from "@meshflow/resolver";
import { EXIT, type ExitCode } from "../exitCodes.js";
import { type Output, printJson } from "../output.js";
import { type CoverageScopeOptions, coverageScope } from "./coverageContext.js";
import { loadToolsContext, printFailures, type ToolsOptions } from "./tools/context.js";

/** Options of `flow docs tools`. */
export interface DocsToolsOptions extends ToolsOptions, CoverageScopeOptions {
  out?: string;
  check?: boolean;
}

/** A path as the document shows it: relative to the working folder, with `/`. */
function shown(path: string): string {
  return (relative(process.cwd(), resolve(path)) || ".").split(sep).join("/");
}

/**
 * `flow docs tools`: the Markdown tool inventory (coverage table, each specialist's and skill's tools) from
 * live discovery, on stdout or written atomically to `--out`; `--check` compares instead of writing.
 */
export async function docsToolsCommand(options: DocsToolsOptions, output: Output): Promise<ExitCode> {
  if (options.check && !options.out)
    throw new MeshflowError("usage", "--check compares with a file: give --out <file>");
  const ctx = await loadToolsContext(options);
  if (ctx.failures.length) {
    // An inventory without a server's tools would be wrong: write nothing.
    printFailures(output, ctx.failures);
    output.err("flow: no inventory written: every configured server must answer");
    return EXIT.environment;
  }
  const configured = [...ctx.mcpConfig.servers.keys()];
  const scope = await coverageScope(options, ctx.skills, configured);
  const inventory = buildInventory({
    tools: ctx.tools,
    servers: configured,
    specialists: scope.specialists,
    skills: ctx.skills,
    index: ctx.index,
    aliases: ctx.aliases,
    shown,
  });
  if (options.json) {
    printJson(output, inventory);
    return EXIT.ok;
  }
  const text = renderInventory(inventory, {
    mcpConfig: shown(ctx.mcpConfig.file ?? ".mcp.json"),
    skillsDir: shown(ctx.skillsDir),
    agents: scope.agents.map(shown),
    ...(options.prd ? { prd: shown(options.prd) } : {}),
  });
  if (!options.out) {
    output.out(text);
    return EXIT.ok;
  }
  const current = existsSync(options.out) ? readFileSync(options.out, "utf8") : undefined;
  if (options.check) {
    if (current === text) {
      output.out(`up to date: ${options.out}`);
      return EXIT.ok;
    }
    output.err(
      `flow: ${options.out} ${current === undefined ? "does not exist" : "differs from the live inventory"}; run flow docs tools --out ${options.out}`,
    );
    return EXIT.failure;
  }
  if (current !== text) writeFileAtomic(resolve(options.out), text);
  output.out(
    `${current === text ? "unchanged" : current === undefined ? "create" : "update"}  ${options.out}  (${ctx.tools.length} tools; ${coverageHeadline(inventory.coverage)})`,
  );
  return EXIT.ok;
}

import { EXIT, type ExitCode } from "../../exitCodes.js";
import { type Output, plural, printJson } from "../../output.js";
import { loadToolsContext, printFailures, type ToolsOptions } from "./context.js";

/** Options of `flow tools classify`. */
export interface ClassifyCommandOptions extends ToolsOptions {
  server?: string[];
}

/** `flow tools classify`: every discovered tool's capabilities, and where they came from. */
export async function classifyCommand(options: ClassifyCommandOptions, output: Output): Promise<ExitCode> {
  const ctx = await loadToolsContext(options, options.server?.length ? options.server : undefined);
  const entries = ctx.index.entries();
  const { stats } = ctx.index;
  if (options.json) {
    printJson(output, {
      tools: entries.map(({ qualifiedName, server, tool, capabilities, source, classifier, reasons }) => ({
        qualifiedName,
        server,
        tool,
        capabilities,
        source,
        classifier,
        reasons,
      })),
      stats,
      catalog: ctx.catalog.file,
      cache: ctx.cache,
      failures: ctx.failures,
    });
  } else {
    const width = Math.max(10, ...entries.map((e) => e.qualifiedName.length)) + 2;
    output.out(`${"tool".padEnd(width)}${"source".padEnd(10)}capabilities`);
    for (const e of entries)
      output.out(`${e.qualifiedName.padEnd(width)}${e.source.padEnd(10)}${e.capabilities.join(", ") || "(none)"}`);
    output.out(
      `\n${plural(stats.tools, "tool")}: ${stats.classified} classified, ${stats.fromCache} from the cache, ` +
        `${stats.overridden} overridden; catalog ${ctx.catalog.file}; cache ${ctx.cache.kind} ${ctx.cache.location}`,
    );
    printFailures(output, ctx.failures);
  }
  return ctx.failures.length ? EXIT.environment : EXIT.ok;
}

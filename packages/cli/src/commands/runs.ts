import { effectiveStatus, FileRunStore } from "@meshflow/runtime/host";
import { EXIT, type ExitCode } from "../exitCodes.js";
import { type Output, printJson } from "../output.js";

/** Options of `flow runs`. */
export interface RunsOptions {
  json?: boolean;
  store?: string;
}

/** `flow runs`: every run in the store, newest first. */
export async function runsCommand(options: RunsOptions, output: Output): Promise<ExitCode> {
  const store = new FileRunStore(options.store);
  const runs = (await store.list()).map((r) => ({ ...r, status: effectiveStatus(r) }));
  if (options.json) {
    printJson(output, {
      runs: runs.map(({ runId, status, prd, createdAt, updatedAt, counts, stories }) => ({
        runId,
        status,
        prd,
        createdAt,
        updatedAt,
        stories: stories.length,
        counts,
      })),
    });
    return EXIT.ok;
  }
  if (!runs.length) {
    output.out(`no runs in ${store.root}`);
    return EXIT.ok;
  }
  for (const r of runs) {
    const c = r.counts;
    output.out(
      `${r.runId.padEnd(26)} ${r.status.padEnd(12)} ${r.createdAt}  ${c.passed}✓ ${c.failed}✗ ${c.blocked}⊘ of ${r.stories.length}  ${r.prd}`,
    );
  }
  return EXIT.ok;
}

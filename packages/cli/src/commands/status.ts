import { FileRunStore, processAlive } from "@meshflow/runtime";
import { EXIT, type ExitCode } from "../exitCodes.js";
import { type Output, printJson } from "../output.js";
import { effectiveStatus, storyReports } from "./runReport.js";

/** Options of `flow status`. */
export interface StatusOptions {
  json?: boolean;
  store?: string;
}

const MARK: Record<string, string> = {
  passed: "✓",
  failed: "✗",
  blocked: "⊘",
  skipped: "–",
  running: "…",
  pending: " ",
};

/** `flow status [runId]`: a run's stories, steps, calls and refusals (default: the newest run). */
export async function statusCommand(
  runId: string | undefined,
  options: StatusOptions,
  output: Output,
): Promise<ExitCode> {
  const store = new FileRunStore(options.store);
  let id = runId;
  if (!id) {
    const [latest] = await store.list();
    if (!latest) {
      const { MeshflowError } = await import("@meshflow/core");
      throw new MeshflowError("run_not_found", `no runs in ${store.root}`);
    }
    id = latest.runId;
  }
  const { record, events } = await store.read(id);
  const status = effectiveStatus(record, processAlive);
  const stories = storyReports(record, events);
  if (options.json) {
    printJson(output, { run: { ...record, status }, stories });
    return EXIT.ok;
  }
  const c = record.counts;
  output.out(`run ${record.runId}  ${status}  (${record.prd})`);
  output.out(
    `started ${record.createdAt}, updated ${record.updatedAt}; ${c.passed} passed, ${c.failed} failed, ${c.blocked} blocked, ${c.skipped} skipped`,
  );
  for (const story of stories) {
    output.out(
      `\n${MARK[story.status] ?? "?"} ${story.id}  ${story.status}${story.summary ? `: ${story.summary}` : ""}`,
    );
    for (const step of story.steps) {
      output.out(
        `    ${MARK[step.status] ?? "?"} step ${step.step} ${step.specialist} · ${step.calls} call(s) · ${step.status}${step.summary ? `: ${step.summary}` : ""}`,
      );
      for (const r of step.refusals) output.out(`        refused ${r.tool}: ${r.code}: ${r.message}`);
    }
    if (story.gate) output.out(`    ${story.gate.passed ? "✓" : "✗"} gate: ${story.gate.summary}`);
  }
  if (status === "interrupted" || status === "aborted") output.out(`\ncontinue it with: flow resume ${record.runId}`);
  return EXIT.ok;
}

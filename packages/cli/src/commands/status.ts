import { sumTokens } from "@meshflow/core";
import { approvalLedger, effectiveStatus, FileRunStore, storyReports } from "@meshflow/runtime/host";
import { terminalColors } from "../colors.js";
import { EXIT, type ExitCode } from "../exitCodes.js";
import { type Output, printJson } from "../output.js";
import { formatTokens } from "../runView/formatEvent.js";
import { printStories } from "./runReport.js";

/** Options of `flow status`. */
export interface StatusOptions {
  json?: boolean;
  store?: string;
}

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
  const status = effectiveStatus(record);
  const stories = storyReports(record, events);
  const tokens = sumTokens(stories.map((s) => s.tokens));
  const { pending, decisions } = approvalLedger(await store.approvals(id).lines());
  // A story whose call waits is awaiting_approval until the run applies a decision, whatever the events say.
  for (const story of stories)
    if (pending.some((p) => p.storyId === story.id) && story.status === "running") story.status = "awaiting_approval";
  if (options.json) {
    printJson(output, {
      run: { ...record, status, ...(tokens ? { tokens } : {}) },
      stories,
      approvals: { pending, decisions },
    });
    return EXIT.ok;
  }
  const c = record.counts;
  output.out(`run ${record.runId}  ${status}  (${record.prd})`);
  output.out(
    `started ${record.createdAt}, updated ${record.updatedAt}; ${c.passed} passed, ${c.failed} failed, ${c.blocked} blocked, ${c.skipped} skipped${tokens ? `; ${formatTokens(tokens)}` : ""}`,
  );
  printStories(output, stories, terminalColors());
  const kept = Object.entries(record.worktrees ?? {});
  if (kept.length) {
    output.out(`\nworktrees kept (each on its branch flow/${record.runId}/<story>; flow reset removes them):`);
    for (const [story, dir] of kept) output.out(`  ${story}  ${dir}`);
  }
  if (pending.length) {
    output.out(
      "\nwaiting for approval (decide with: flow approve <runId> <callKey>… | --all [--deny --reason <text>]):",
    );
    for (const p of pending)
      output.out(`  ${p.key}  ${p.storyId} step ${p.step}: ${p.tool} ${JSON.stringify(p.args)}  (${p.rule})`);
  }
  if (decisions.length) {
    output.out("\napprovals decided:");
    for (const d of decisions)
      output.out(
        `  ${d.key}  ${d.approved ? "approved" : "denied"} ${d.time} by ${d.by}${d.reason ? `: ${d.reason}` : ""}  (args ${d.argsDigest.slice(0, 19)})`,
      );
  }
  if (status === "interrupted" || status === "aborted") output.out(`\ncontinue it with: flow resume ${record.runId}`);
  return EXIT.ok;
}

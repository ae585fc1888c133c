import { type Prd, stepKey } from "@meshflow/core";

/** A draft as a person reads it before accepting it: each story with its criteria, steps, servers and checks. */
export function draftSummary(prd: Prd): string[] {
  const lines = [`${prd.project}: ${prd.description || "(no description)"}`, `branch ${prd.branchName ?? "(none)"}`];
  for (const story of prd.userStories) {
    const after = story.dependsOn?.length ? `, after ${story.dependsOn.join(", ")}` : "";
    lines.push("", `${story.id}  ${story.title}  (priority ${story.priority}${after})`);
    if (story.description) lines.push(`  ${story.description}`);
    for (const criterion of story.acceptanceCriteria) lines.push(`  - ${criterion}`);
    const steps = story.mavenSteps.map((step) => {
      const servers = story.mcpTools[stepKey(step)] ?? [];
      return servers.length ? `${step} (${servers.join(", ")})` : `${step}`;
    });
    lines.push(`  steps ${steps.join(", ")}`);
    if (story.verify?.length) lines.push(`  verify ${story.verify.map((v) => v.run.join(" ")).join("; ")}`);
  }
  return lines;
}

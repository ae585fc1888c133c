/**
 * A PRD of `count` stories × development steps (default 1, 2, 7), each with one scripted `echo` call to
 * server-everything; with `notes: false` the stories have no `notes` field (the write-back adds it).
 */
export function generateMcpPrd(
  count: number,
  steps: readonly number[] = [1, 2, 7],
  options: { notes?: boolean } = {},
): string {
  const call = (i: number, step: number) => [
    { tool: "everything__echo", args: { message: `US-${i + 1} step ${step}` } },
  ];
  const userStories = Array.from({ length: count }, (_, i) => ({
    id: `US-${String(i + 1).padStart(5, "0")}`,
    title: `Story ${i + 1}`,
    description: `As a user, I want feature ${i + 1}.`,
    acceptanceCriteria: ["Typecheck passes"],
    mavenSteps: [...steps],
    mcpTools: Object.fromEntries(steps.map((s) => [`step${s}`, ["everything"]])),
    calls: Object.fromEntries(steps.map((s) => [`step${s}`, call(i, s)])),
    priority: 1,
    passes: false,
    ...(options.notes === false ? {} : { notes: "" }),
  }));
  return `${JSON.stringify({ project: "Bench", userStories }, null, 2)}\n`;
}

/** A PRD of `count` stories × 3 steps (1, 3, 5: development, refactor, quality), no MCP servers. */
export function generatePrd(count: number): string {
  const userStories = Array.from({ length: count }, (_, i) => ({
    id: `US-${String(i + 1).padStart(4, "0")}`,
    title: `Story ${i + 1}`,
    description: `As a user, I want feature ${i + 1}.`,
    acceptanceCriteria: ["Typecheck passes"],
    mavenSteps: [1, 3, 5],
    priority: 1,
    passes: false,
    notes: "",
  }));
  return `${JSON.stringify({ project: "Bench", userStories }, null, 2)}\n`;
}

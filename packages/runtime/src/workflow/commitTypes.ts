import { oneLine } from "./oneLine.js";

/**
 * The conventional-commit type of a story's commit, by the kind of specialist that did its first step
 * (its name without `-agent`). Data, not logic: add a row for a specialist of your own.
 */
const COMMIT_TYPES: Readonly<Record<string, string>> = Object.freeze({
  development: "feat",
  refactor: "refactor",
  quality: "test",
  security: "security",
  design: "design",
});

/** The commit type when no step's specialist has a row in {@link COMMIT_TYPES}. */
export const DEFAULT_COMMIT_TYPE = "chore";

/** The commit type of a story whose steps were done by `specialists` (in step order). */
export function commitType(specialists: readonly string[]): string {
  for (const name of specialists) {
    const type = COMMIT_TYPES[name.replace(/-agent$/, "")];
    if (type) return type;
  }
  return DEFAULT_COMMIT_TYPE;
}

/**
 * The commit message of a passed story, wherever it is committed (the main tree under `--commit`, its
 * worktree under `--isolate worktree`): `<type>: <id> <title>` on one line (a newline in a title would
 * start a paragraph of its own, and forge trailers there), then the `Meshflow-Run` trailer.
 */
export function storyCommitMessage(
  specialists: readonly string[],
  story: { id: string; title: string },
  runId: string,
): [subject: string, trailer: string] {
  return [`${commitType(specialists)}: ${oneLine(story.id)} ${oneLine(story.title)}`, `Meshflow-Run: ${runId}`];
}

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

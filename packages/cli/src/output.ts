/** Where a command writes: injected so tests and embedders can capture output. */
export interface Output {
  out(text: string): void;
  err(text: string): void;
}

/** Writes to the process's stdout and stderr. */
export const processOutput: Output = {
  out: (text) => process.stdout.write(text.endsWith("\n") ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith("\n") ? text : `${text}\n`),
};

/** Prints a value as JSON on stdout, one document. */
export function printJson(output: Output, value: unknown): void {
  output.out(JSON.stringify(value, null, 2));
}

/** `1 problem` / `3 problems`; irregular plurals are passed in (`plural(n, "story", "stories")`). */
export function plural(count: number, word: string, many = `${word}s`): string {
  return `${count} ${count === 1 ? word : many}`;
}

/** Stories named one by one when there are a few (a command's `--json` lists them all). */
const LISTED_STORIES = 10;

/** Story ids, or their count with the first and last when there are more than 10. */
export function storyList(ids: readonly string[]): string {
  return ids.length <= LISTED_STORIES ? ids.join(", ") : `${ids.length} stories (${ids[0]} … ${ids.at(-1)})`;
}

/** `code: message`, the code printed once: a message that already starts with its code keeps it as it is. */
export function coded(code: string, message: string): string {
  return message.startsWith(`${code}:`) || message.startsWith(`${code} `) ? message : `${code}: ${message}`;
}

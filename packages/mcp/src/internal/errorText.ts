/** An error's message, with its cause's when that adds something (fetch failures hide the reason there). */
export function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error && !error.message.includes(cause.message)
    ? `${error.message} (${cause.message})`
    : error.message;
}

/** Indents every line of `text` by four spaces (stderr quoted inside a message). */
export function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => `    ${line}`)
    .join("\n");
}

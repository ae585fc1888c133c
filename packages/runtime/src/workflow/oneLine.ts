/**
 * Story text (a title, an id, a path) on one line: every run of whitespace and control characters
 * (newlines, `\r`, U+2028…) becomes one space. A title then cannot start a Markdown line, a shell
 * command (in a progress log planted where a shell reads it) or a commit trailer of its own.
 */
export function oneLine(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
  return text.replace(/[\s\u0000-\u001f\u007f-\u009f]+/g, " ").trim();
}

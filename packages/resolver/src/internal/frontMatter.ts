import { parseYaml } from "@meshflow/core";

/** The front matter of a Markdown file: a first line `---`, YAML, then a line `---`. */
const FRONT_MATTER = /^\uFEFF?---[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?---[ \t]*(?:\r?\n|$)/;

/**
 * A Markdown file's YAML front matter, parsed, and the text after it. A file without front matter
 * has `data` `{}` and all of its text as `body`. Throws the YAML parser's error for invalid YAML.
 */
export function splitFrontMatter(text: string): { data: unknown; body: string } {
  const found = FRONT_MATTER.exec(text);
  if (!found) return { data: {}, body: text };
  const yaml = found[1] ?? "";
  return { data: yaml.trim() ? (parseYaml(yaml) ?? {}) : {}, body: text.slice(found[0].length) };
}

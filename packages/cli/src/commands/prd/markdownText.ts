import type { Nodes, Parent } from "mdast";

/** The Markdown source of a parsed document, for slicing nodes back out of it. */
export interface MarkdownSource {
  text: string;
  /** Lines before the part that was parsed (ralph-tui's `[PRD]` marker), added to every line reported. */
  lineOffset: number;
}

/** The node's own Markdown, whitespace runs (line breaks included) made one space. */
export function sourceOf(source: MarkdownSource, node: Nodes): string {
  const start = node.position?.start.offset;
  const end = node.position?.end.offset;
  if (start === undefined || end === undefined) return "";
  return source.text.slice(start, end).replace(/\s+/g, " ").trim();
}

/** The node's text without its Markdown (inline code keeps its content, emphasis and links their words). */
export function plainText(node: Nodes): string {
  if ("value" in node && typeof node.value === "string") return node.value;
  if ("children" in node) return (node as Parent).children.map((child) => plainText(child as Nodes)).join("");
  return "";
}

/** The line of the file the node starts on (1-based). */
export function lineOf(source: MarkdownSource, node: Nodes): number {
  return (node.position?.start.line ?? 1) + source.lineOffset;
}

/** One line group of a paragraph: `**Label:** value` lines start one, the lines after them continue it. */
export interface Segment {
  /** The label in lower case without its colon; undefined for text before any label. */
  label: string | undefined;
  /** The Markdown after the label, on one line. */
  value: string;
  /** The whole group's Markdown, label included, on one line. */
  text: string;
  /** The line of the file it starts on. */
  line: number;
}

/** `**Description:** As a user …` or `**Priority**: 2` at the start of a line. */
const LABEL_LINE = /^\s*(\*\*|__)([^*_\n]{1,40}?)(:?)\1(:?)\s*(.*)$/;

/**
 * A paragraph taken apart at its labelled lines: ralph's PRDs write `**Description:** …` alone, and
 * `**Priority:** 1` / `**Depends on:** US-001` on consecutive lines (one paragraph in Markdown).
 */
export function segments(source: MarkdownSource, node: Nodes): Segment[] {
  const start = node.position?.start.offset;
  const end = node.position?.end.offset;
  if (start === undefined || end === undefined) return [];
  const result: Segment[] = [];
  const first = lineOf(source, node);
  source.text
    .slice(start, end)
    .split(/\r?\n/)
    .forEach((raw, i) => {
      const line = raw.trim();
      const match = LABEL_LINE.exec(line);
      if (match && (match[3] || match[4])) {
        const label = (match[2] ?? "").trim().toLowerCase();
        result.push({ label, value: (match[5] ?? "").trim(), text: line, line: first + i });
        return;
      }
      const last = result.at(-1);
      if (last) {
        last.value = `${last.value} ${line}`.trim();
        last.text = `${last.text} ${line}`.trim();
      } else result.push({ label: undefined, value: line, text: line, line: first + i });
    });
  return result;
}

/** A plain paragraph that is only a label (`Acceptance Criteria:`), in lower case without its colon. */
export function bareLabel(node: Nodes): string | undefined {
  if (node.type !== "paragraph") return undefined;
  const text = plainText(node).trim();
  return /^[A-Za-z][A-Za-z /-]{0,40}:$/.test(text) ? text.slice(0, -1).trim().toLowerCase() : undefined;
}

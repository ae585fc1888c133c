import type { Heading, List, Nodes, RootContent } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmTaskListItemFromMarkdown } from "mdast-util-gfm-task-list-item";
import { gfmTaskListItem } from "micromark-extension-gfm-task-list-item";
import { bareLabel, lineOf, type MarkdownSource, plainText, type Segment, segments, sourceOf } from "./markdownText.js";

/** One user story as the Markdown writes it; the fields a PRD needs are interpreted later. */
export interface MarkdownStory {
  /** The id its heading starts with (`US-001`), if any. */
  id: string | undefined;
  title: string;
  /** The line of its heading. */
  line: number;
  description: string;
  criteria: string[];
  /** The criteria came from a list under the story with no "Acceptance Criteria" label. */
  unlabelledCriteria: boolean;
  /** `**Priority:**`, `**Depends on:**`, `**Steps:**`, `**Type:**` as written. */
  fields: Partial<Record<StoryField, { value: string; line: number }>>;
  /** Paragraphs and lists after the criteria. */
  notes: string[];
}

/** A line of the "Quality Gates" section: a command (in backticks) or a check in words. */
export interface QualityGate {
  text: string;
  command: string | undefined;
  /** Listed for UI stories only (after "For UI stories, also include:"). */
  uiOnly: boolean;
  line: number;
}

/** A Markdown PRD of the shape ralph's and ralph-tui's PRD skills write, taken apart. */
export interface MarkdownPrd {
  /** The first `#` heading without its `PRD:` prefix. */
  title: string | undefined;
  /** The first paragraph of the introduction (or overview), else the first one under the title. */
  description: string | undefined;
  gates: QualityGate[];
  stories: MarkdownStory[];
}

type StoryField = "priority" | "dependsOn" | "steps" | "type";

const FIELD_LABELS: Readonly<Record<string, StoryField>> = {
  priority: "priority",
  "depends on": "dependsOn",
  dependencies: "dependsOn",
  "depends-on": "dependsOn",
  steps: "steps",
  "maven steps": "steps",
  type: "type",
  kind: "type",
};
const CRITERIA = /^(acceptance criteria|acceptance|criteria)$/;
const STORY_ID = /^([A-Za-z][A-Za-z0-9]*-\d+)\s*(?:[:.\u2013\u2014-]\s*|\s+)(.*)$/;
const STORIES_SECTION = /\b(user )?stories\b/i;
const GATES_SECTION = /\bquality gates?\b/i;
const INTRO_SECTION = /^(introduction|overview|summary|description)\b/i;

/** ralph-tui's chat wraps the PRD in `[PRD]` … `[/PRD]`: only that part is read (lines still count from the file's start). */
function unwrap(text: string): MarkdownSource {
  const open = /^\[PRD\][ \t]*$/m.exec(text);
  const close = /^\[\/PRD\][ \t]*$/m.exec(text);
  if (!open || !close || close.index < open.index) return { text, lineOffset: 0 };
  const start = open.index + open[0].length;
  return {
    text: text.slice(start, close.index),
    lineOffset: text.slice(0, start).split("\n").length - 1,
  };
}

/** The items of a list (nested ones flattened after their parent), each as its Markdown on one line. */
function listItems(source: MarkdownSource, list: List): string[] {
  const items: string[] = [];
  for (const item of list.children) {
    const own = item.children.filter((c) => c.type !== "list").map((c) => sourceOf(source, c));
    const text = own.join(" ").trim();
    if (text) items.push(text);
    for (const child of item.children) if (child.type === "list") items.push(...listItems(source, child));
  }
  return items;
}

function newStory(source: MarkdownSource, heading: Heading, text: string): MarkdownStory {
  const match = STORY_ID.exec(text);
  return {
    id: match?.[1],
    title: (match ? (match[2] ?? "") : text).trim() || text,
    line: lineOf(source, heading),
    description: "",
    criteria: [],
    unlabelledCriteria: false,
    fields: {},
    notes: [],
  };
}

/** Reads one block of a story's body into it; `mode` is what the blocks belong to so far. */
class StoryReader {
  mode: "description" | "criteria" | "other" = "description";

  constructor(
    readonly source: MarkdownSource,
    readonly story: MarkdownStory,
    readonly depth: number,
  ) {}

  read(node: RootContent): void {
    const { story, source } = this;
    if (node.type === "heading") {
      const text = plainText(node).trim().toLowerCase().replace(/:$/, "");
      this.mode = CRITERIA.test(text) ? "criteria" : text === "description" ? "description" : "other";
      return;
    }
    if (node.type === "paragraph" && segments(source, node)[0]?.label !== undefined) {
      for (const segment of segments(source, node)) this.#labelled(segment);
      return;
    }
    const bare = bareLabel(node);
    if (bare !== undefined && (CRITERIA.test(bare) || bare === "description")) {
      this.mode = CRITERIA.test(bare) ? "criteria" : "description";
      return;
    }
    if (node.type === "paragraph") {
      if (this.mode === "description") this.#describe(sourceOf(source, node));
      else story.notes.push(sourceOf(source, node));
    } else if (node.type === "list") {
      const items = listItems(source, node);
      if (this.mode === "criteria") story.criteria.push(...items);
      else if (this.mode === "description" && story.criteria.length === 0) {
        story.criteria.push(...items);
        story.unlabelledCriteria = true;
        this.mode = "criteria";
      } else story.notes.push(...items);
    }
  }

  #labelled({ label, value, text, line }: Segment): void {
    const { story } = this;
    const field = label === undefined ? undefined : FIELD_LABELS[label];
    if (field) story.fields[field] = { value, line };
    else if (label !== undefined && CRITERIA.test(label)) {
      this.mode = "criteria";
      if (value) story.criteria.push(value);
    } else if (label === "description") {
      this.mode = "description";
      this.#describe(value);
    } else if (label === "notes") story.notes.push(value);
    else this.#describe(text);
  }

  #describe(text: string): void {
    if (text) this.story.description = this.story.description ? `${this.story.description} ${text}` : text;
  }
}

function readGates(source: MarkdownSource, nodes: readonly RootContent[]): QualityGate[] {
  const gates: QualityGate[] = [];
  let uiOnly = false;
  for (const node of nodes) {
    if (node.type === "paragraph" && /\b(ui|frontend|front-end)\b/i.test(plainText(node))) uiOnly = true;
    if (node.type !== "list") continue;
    for (const item of node.children) {
      const first = item.children[0];
      if (first?.type !== "paragraph") continue;
      const code = first.children[0]?.type === "inlineCode" ? first.children[0].value.trim() : undefined;
      gates.push({ text: sourceOf(source, first), command: code || undefined, uiOnly, line: lineOf(source, item) });
    }
  }
  return gates;
}

/**
 * Takes a Markdown PRD apart (CommonMark with GFM task lists): its title, introduction, "Quality Gates"
 * and user stories — `### US-001: Title` headings (any heading starting with `US-<n>`, or any heading
 * under a "User Stories" section), each with a description, an "Acceptance Criteria" list (checkboxes
 * or bullets) and optional `**Priority:**`, `**Depends on:**`, `**Steps:**`, `**Type:**` lines.
 */
export function parseMarkdownPrd(text: string): MarkdownPrd {
  const source = unwrap(text);
  const root = fromMarkdown(source.text, {
    extensions: [gfmTaskListItem()],
    mdastExtensions: [gfmTaskListItemFromMarkdown()],
  });
  const result: MarkdownPrd = { title: undefined, description: undefined, gates: [], stories: [] };
  let section = "";
  let sectionDepth = 0;
  let beforeSections: string | undefined;
  let intro: string | undefined;
  let reader: StoryReader | undefined;
  const gateNodes: RootContent[] = [];
  for (const node of root.children) {
    if (node.type === "heading") {
      const text = plainText(node).trim();
      if (reader && node.depth > reader.depth) {
        reader.read(node);
        continue;
      }
      reader = undefined;
      const inStories = STORIES_SECTION.test(section) && node.depth > sectionDepth;
      if (/^US-\d+\b/i.test(text) || (inStories && node.depth > 1)) {
        const story = newStory(source, node, text);
        result.stories.push(story);
        reader = new StoryReader(source, story, node.depth);
      } else if (node.depth === 1 && result.title === undefined) {
        result.title = text.replace(/^PRD\s*[:\u2013\u2014-]\s*/i, "").trim() || undefined;
      } else if (node.depth <= 2 || !section) {
        section = text;
        sectionDepth = node.depth;
      }
      continue;
    }
    if (reader) reader.read(node);
    else if (GATES_SECTION.test(section)) gateNodes.push(node);
    else if (node.type === "paragraph") {
      if (!section) beforeSections ??= sourceOf(source, node as Nodes);
      else if (INTRO_SECTION.test(section)) intro ??= sourceOf(source, node as Nodes);
    }
  }
  result.gates = readGates(source, gateNodes);
  result.description = intro ?? beforeSections;
  return result;
}

import type { ToolDescriptor } from "@meshflow/core";
import { distance } from "fastest-levenshtein";
import MiniSearch from "minisearch";
import { normalizeToolName } from "../internal/toolNames.js";

const searches = new WeakMap<readonly ToolDescriptor[], MiniSearch>();

function searchOf(tools: readonly ToolDescriptor[]): MiniSearch {
  let search = searches.get(tools);
  if (!search) {
    search = new MiniSearch({
      idField: "qualifiedName",
      fields: ["words", "description"],
      // `read_text_file`, `get-sum` and `readFile` all become separate words.
      extractField: (doc, field) => {
        const tool = doc as ToolDescriptor;
        return field === "words"
          ? normalizeToolName(tool.name).replace(/_/g, " ")
          : field === "description"
            ? `${tool.title ?? ""} ${tool.description}`
            : tool.qualifiedName;
      },
    });
    search.addAll(tools as ToolDescriptor[]);
    searches.set(tools, search);
  }
  return search;
}

function similarity(a: string, b: string): number {
  const longest = Math.max(a.length, b.length);
  return longest ? 1 - distance(a, b) / longest : 0;
}

/**
 * The `max` tools of `tools` most similar to `input`, best first: edit-distance similarity of the names
 * (also with `strippedInputs`, the input without known prefixes) plus full-text relevance of the input's
 * words in the tools' names and descriptions (MiniSearch, fuzzy and prefix matching).
 */
export function rankCandidates(
  input: string,
  tools: readonly ToolDescriptor[],
  max = 5,
  strippedInputs: readonly string[] = [],
): ToolDescriptor[] {
  if (!tools.length) return [];
  const needles = [input, ...strippedInputs].map(normalizeToolName);
  const query = needles[0]?.replace(/_/g, " ") ?? "";
  const text = new Map<string, number>();
  let best = 0;
  for (const hit of searchOf(tools).search(query, {
    boost: { words: 3 },
    fuzzy: 0.25,
    prefix: true,
    combineWith: "OR",
  })) {
    text.set(String(hit.id), hit.score);
    best = Math.max(best, hit.score);
  }
  return tools
    .map((tool, order) => {
      const name = normalizeToolName(tool.name);
      const nameScore = Math.max(...needles.map((n) => similarity(n, name)));
      const textScore = best ? (text.get(tool.qualifiedName) ?? 0) / best : 0;
      return { tool, order, score: nameScore + textScore };
    })
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, max)
    .map((s) => s.tool);
}

import { z } from "zod";
import { dataFile, readDataFile } from "./readDataFile.js";
import { wordPattern } from "./wordPattern.js";

const VagueCriteriaSchema = z.strictObject({
  minWords: z.number().int().min(1),
  phrases: z.array(z.string().min(1)),
});

/** Compiled `data/vague-criteria.yaml`. */
interface VagueCriteria {
  minWords: number;
  phrases: RegExp[];
}

let loaded: VagueCriteria | undefined;

function vagueCriteria(): VagueCriteria {
  if (loaded) return loaded;
  const data = readDataFile(dataFile("vague-criteria.yaml"), VagueCriteriaSchema);
  loaded = {
    minWords: data.minWords,
    phrases: data.phrases.map(wordPattern),
  };
  return loaded;
}

/** Something exact a check can hold a criterion to: `code`, a number, a "quoted" text, a path or file name. */
const EXACT = /`[^`]+`|\d|"[^"]+"|'[^']+'|\u201c[^\u201d]+\u201d|[\w-]+\/[\w./-]+|\b[\w-]+\.[a-z]{1,5}\b/;

/**
 * Whether an acceptance criterion can be checked: it names something exact, or it is at least
 * `minWords` words long and uses none of the vague phrases of `data/vague-criteria.yaml`.
 */
export function isCheckable(criterion: string): boolean {
  if (EXACT.test(criterion)) return true;
  const { minWords, phrases } = vagueCriteria();
  if (criterion.trim().split(/\s+/).filter(Boolean).length < minWords) return false;
  return !phrases.some((p) => p.test(criterion));
}

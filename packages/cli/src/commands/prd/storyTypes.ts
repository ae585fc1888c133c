import { StepNumberSchema } from "@meshflow/core";
import { z } from "zod";
import { dataFile, readDataFile } from "./readDataFile.js";
import { wordPattern } from "./wordPattern.js";

const StoryTypeSchema = z.strictObject({
  description: z.string().min(1),
  ui: z.boolean().default(false),
  steps: z.array(StepNumberSchema).min(1),
  keywords: z.array(z.string().min(1)),
  titleOnly: z.boolean().default(false),
});

const StoryTypesSchema = z
  .strictObject({
    default: z.string().min(1),
    boilerplate: z.array(z.string().min(1)).default([]),
    types: z.record(z.string().regex(/^[a-z][a-z0-9-]*$/, "a story type is lower-case kebab-case"), StoryTypeSchema),
  })
  .refine((data) => Object.hasOwn(data.types, data.default), {
    message: "`default` must name one of `types`",
    path: ["default"],
  });

/** One kind of story and the steps it gets. */
export interface StoryType {
  name: string;
  description: string;
  /** Gets the quality gates listed for UI stories. */
  ui: boolean;
  steps: readonly number[];
  keywords: readonly string[];
  /** Chosen by its title's words alone (stories of every kind describe their tests). */
  titleOnly: boolean;
}

/** The kinds of story `flow prd convert` tells apart (`data/story-types.yaml`). */
export interface StoryTypes {
  /** In the file's order: ties go to the first. */
  types: readonly StoryType[];
  /** The kind of a story that matches no keyword. */
  fallback: StoryType;
  /** Criteria every story carries (`Typecheck passes`): they say nothing of its kind. */
  boilerplate: readonly RegExp[];
}

/** A story's kind, and the keywords that chose it (none: the default kind). */
export interface StoryKind {
  type: StoryType;
  matched: string[];
}

let loaded: StoryTypes | undefined;

/** Loads `data/story-types.yaml` (once), validated. */
export function storyTypes(): StoryTypes {
  if (loaded) return loaded;
  const data = readDataFile(dataFile("story-types.yaml"), StoryTypesSchema);
  const types = Object.entries(data.types).map(([name, t]) => ({ name, ...t }));
  loaded = {
    types,
    fallback: types.find((t) => t.name === data.default) as StoryType,
    boilerplate: data.boilerplate.map(wholeCriterion),
  };
  return loaded;
}

/** A pattern matching a criterion that is exactly `text` (spaces as any white space, punctuation around it). */
function wholeCriterion(text: string): RegExp {
  const escaped = text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/ +/g, "\\s+");
  return new RegExp(`^\\W*${escaped}\\W*$`, "i");
}

/** The keywords of `type` that `text` mentions as whole words. */
function mentioned(type: StoryType, text: string): string[] {
  return type.keywords.filter((word) => wordPattern(word).test(text));
}

/**
 * The kind of a story by its words: each keyword its title mentions counts 2, each its description
 * (or criteria, given as part of it) mentions 1; the highest score wins, ties going to the kind listed
 * first; no keyword: the default. A `titleOnly` kind counts its title alone.
 */
export function classifyStory(kinds: StoryTypes, title: string, description: string): StoryKind {
  let best: StoryKind = { type: kinds.fallback, matched: [] };
  let bestScore = 0;
  for (const type of kinds.types) {
    const inTitle = mentioned(type, title);
    const inDescription = type.titleOnly ? [] : mentioned(type, description);
    const score = inTitle.length * 2 + inDescription.length;
    if (score > bestScore) {
      bestScore = score;
      best = { type, matched: [...new Set([...inTitle, ...inDescription])] };
    }
  }
  return best;
}

/** The criteria of a story that may tell its kind: those that are not {@link StoryTypes.boilerplate}. */
export function telling(kinds: StoryTypes, criteria: readonly string[]): string[] {
  return criteria.filter((c) => !kinds.boilerplate.some((pattern) => pattern.test(c.trim())));
}

import { describe, expect, it } from "vitest";
import { PrdSplitter, type SplitElement } from "./PrdSplitter.js";

/** Splits `text` fed in chunks of `size` bytes: the head text (or undefined) and the elements. */
function split(text: string, size = 1 << 20): { head: string | undefined; elements: SplitElement[] } {
  const elements: SplitElement[] = [];
  const splitter = new PrdSplitter((e) => elements.push(e));
  const bytes = Buffer.from(text, "utf8");
  for (let at = 0; at < bytes.length; at += size) splitter.push(Buffer.from(bytes.subarray(at, at + size)));
  return { head: splitter.finish(), elements };
}

const values = (elements: SplitElement[]) => elements.map((e) => JSON.parse(e.bytes.toString("utf8")));

/** A small deterministic random source, so a failure names a reproducible case. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe("PrdSplitter", () => {
  it("finds each story's bytes and leaves the PRD's own fields around an empty array", () => {
    const text = '{ "project": "P", "userStories": [ {"id": "a", "n": [1, {"x": "]"}]}, {"id": "b"} ], "z": 1 }';
    for (const size of [1, 2, 3, 7, 1 << 20]) {
      const { head, elements } = split(text, size);
      expect(values(elements)).toEqual([{ id: "a", n: [1, { x: "]" }] }, { id: "b" }]);
      expect(JSON.parse(head ?? "")).toEqual({ project: "P", userStories: [], z: 1 });
    }
  });

  it("gives byte offsets, also after characters of several bytes", () => {
    const text = '{"project": "Café ☕ 🚀", "userStories": [{"id": "é"}, {"id": "🚀\\"]"}]}';
    const bytes = Buffer.from(text, "utf8");
    for (const size of [1, 5, 1 << 20]) {
      const { elements } = split(text, size);
      expect(elements.map((e) => bytes.subarray(e.start, e.end).toString("utf8"))).toEqual([
        '{"id": "é"}',
        '{"id": "🚀\\"]"}',
      ]);
    }
  });

  it("keeps elements that are not objects, so the validator reports them at their index", () => {
    const text = '{"userStories": ["x", 3, null, ["y"], -1.5e3 , "a\\\\"]}';
    for (const size of [1, 4, 1 << 20])
      expect(values(split(text, size).elements)).toEqual(["x", 3, null, ["y"], -1500, "a\\"]);
  });

  it("leaves to the whole parse what is not strict JSON shaped like a PRD", () => {
    const unusable = [
      '{"userStories": [{"id": "a"},]}', // trailing comma
      '{"userStories": [{"id": "a"} {"id": "b"}]}', // missing comma
      '{"userStories": [1 2]}',
      '{"userStories": [,{"id": "a"}]}',
      '[{"id": "a"}]', // root is not an object
      '{"userStories": {"id": "a"}}', // not an array
      '{"project": "P"}', // no stories
      '{"userStories": [{"id": "a"}], "userStories": []}', // JSON.parse keeps the last of two keys
      '{"user\\u0053tories": [], "userStories": []}',
      '{"userStories": [{"id": "a"}]', // unterminated
      '{"userStories": []} x',
      "",
    ];
    for (const text of unusable) expect(split(text).head, text).toBeUndefined();
  });

  it("accepts exactly what JSON.parse accepts, element by element, whatever the chunking", () => {
    const next = random(7);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
    const story = (i: number) => ({
      id: `US-${i}`,
      title: pick(["plain", 'quote " and \\ slash', "brackets ] } [ {", "ünïcödé 🚀", "line\nbreak"]),
      mavenSteps: [1, 2],
      nested: { deep: [[i, { k: pick([true, false, null, 1.5]) }]] },
      passes: false,
      notes: "",
    });
    const prd = {
      project: "P",
      branchName: "b",
      userStories: Array.from({ length: 12 }, (_, i) => story(i)),
      git: { commit: true },
    };
    const texts = [JSON.stringify(prd), JSON.stringify(prd, null, 2), JSON.stringify(prd, null, "\t")];
    const insertable = [" ", ",", "]", "}", "[", "{", '"', "\\", "x", "1", ":"];
    for (let round = 0; round < 1000; round++) {
      const base = pick(texts);
      // Half the rounds break the text at one place: the split must then agree with JSON.parse.
      let text = base;
      if (round % 2 === 1) {
        // Mostly at a bracket or comma, where the array's separators are.
        const structural = [...base.matchAll(/[,[\]{}]/g)].map((m) => m.index ?? 0);
        const at = next() < 0.7 ? pick(structural) + Math.floor(next() * 2) : Math.floor(next() * base.length);
        text =
          next() < 0.5 ? base.slice(0, at) + pick(insertable) + base.slice(at) : base.slice(0, at) + base.slice(at + 1);
      }
      let whole: { userStories?: unknown } | undefined;
      try {
        whole = JSON.parse(text) as { userStories?: unknown };
      } catch {
        whole = undefined;
      }
      const { head, elements } = split(text, 1 + Math.floor(next() * 64));
      if (head === undefined) continue; // the whole parse decides
      let parts: unknown[];
      let headValue: Record<string, unknown>;
      try {
        parts = values(elements);
        headValue = JSON.parse(head) as Record<string, unknown>;
      } catch {
        continue; // an element or the head is not JSON: the whole parse decides
      }
      expect(whole, `round ${round}: split a text JSON.parse refuses: ${text}`).toBeDefined();
      expect({ ...headValue, userStories: parts }, `round ${round}`).toEqual(whole);
    }
  });
});

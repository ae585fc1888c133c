import { closeSync, openSync, readSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { PrdGitSchema, PrdSplitter } from "@meshflow/core";

/** The fields of a PRD its workflow needs before the run: whether stories are committed, what it depends on. */
export interface PrdHead {
  /** `"git": {"commit": true}`. */
  commit: boolean;
  /** Its `dependsOn`, resolved against its folder. */
  dependsOn: string[];
}

const CHUNK = 1024 * 1024;

/**
 * Reads a PRD's own fields without parsing its stories (a PRD of any size costs one chunk of memory);
 * a PRD that cannot be read or is not shaped like one has neither (the run reports what is wrong).
 */
export function readPrdHead(file: string): PrdHead {
  try {
    const splitter = new PrdSplitter(() => {});
    const fd = openSync(file, "r");
    try {
      for (;;) {
        const chunk = Buffer.allocUnsafe(CHUNK);
        const read = readSync(fd, chunk, 0, CHUNK, null);
        if (read === 0) break;
        splitter.push(chunk.subarray(0, read));
      }
    } finally {
      closeSync(fd);
    }
    const text = splitter.finish();
    const head = text === undefined ? {} : (JSON.parse(text) as Record<string, unknown>);
    const dependsOn = Array.isArray(head.dependsOn)
      ? head.dependsOn.filter((d): d is string => typeof d === "string").map((d) => resolve(dirname(file), d))
      : [];
    return { commit: PrdGitSchema.safeParse(head.git).data?.commit === true, dependsOn };
  } catch {
    return { commit: false, dependsOn: [] };
  }
}

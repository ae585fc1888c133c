import { readFileSync } from "node:fs";
import { writeFileAtomic } from "@meshflow/core";
import { type CachedClassification, type ClassificationCache, isCachedClassification } from "./ClassificationCache.js";

/** The file cache's default location, relative to the working directory. */
export const DEFAULT_CACHE_FILE = ".flow/cache/classifications.json";

interface FileContent {
  version: 1;
  entries: Record<string, CachedClassification>;
}

/**
 * Classifications in one JSON file (default `.flow/cache/classifications.json`), read once and written
 * whole through a temp file and a rename, so a crash never leaves half a file. An unreadable or corrupt
 * file counts as empty: it is a cache, and the next write replaces it.
 */
export class FileClassificationCache implements ClassificationCache {
  readonly kind = "file";
  readonly location: string;
  private entries: Map<string, CachedClassification> | undefined;

  constructor(file: string = DEFAULT_CACHE_FILE) {
    this.location = file;
  }

  private load(): Map<string, CachedClassification> {
    if (this.entries) return this.entries;
    const entries = new Map<string, CachedClassification>();
    try {
      const data = JSON.parse(readFileSync(this.location, "utf8")) as Partial<FileContent>;
      if (data.version === 1 && data.entries && typeof data.entries === "object")
        for (const [key, value] of Object.entries(data.entries))
          if (isCachedClassification(value)) entries.set(key, value);
    } catch {
      // missing or corrupt: start empty (see the class comment)
    }
    this.entries = entries;
    return entries;
  }

  async getMany(qualifiedNames: readonly string[]): Promise<(CachedClassification | undefined)[]> {
    const entries = this.load();
    return qualifiedNames.map((name) => entries.get(name));
  }

  async setMany(list: readonly CachedClassification[]): Promise<void> {
    if (!list.length) return;
    const entries = this.load();
    for (const entry of list) entries.set(entry.qualifiedName, entry);
    const content: FileContent = {
      version: 1,
      entries: Object.fromEntries([...entries].sort(([a], [b]) => (a < b ? -1 : 1))),
    };
    // Owner-only, like everything under the run store.
    writeFileAtomic(this.location, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
  }

  async close(): Promise<void> {}
}

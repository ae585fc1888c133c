import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { removeStaleTempFiles, writeFileAtomic } from "./writeFileAtomic.js";

describe("writeFileAtomic", () => {
  const dir = mkdtempSync(join(tmpdir(), "meshflow-atomic-"));

  it("writes parts one after the other, a large part in slices that never split a surrogate pair", () => {
    const file = join(dir, "parts.txt");
    // The emoji straddles the 256 KiB slice boundary: split there, it would be written as two U+FFFD.
    const large = `${"a".repeat(256 * 1024 - 1)}😀${"b".repeat(300 * 1024)}`;
    const parts = ["head ", "ü", large, "", " tail"];
    writeFileAtomic(file, parts);
    expect(readFileSync(file, "utf8")).toBe(parts.join(""));
  });

  it("replaces the content and creates missing parent folders", () => {
    const file = join(dir, "a", "b", "out.json");
    writeFileAtomic(file, "one");
    writeFileAtomic(file, "two");
    expect(readFileSync(file, "utf8")).toBe("two");
    expect(readdirSync(join(dir, "a", "b"))).toEqual(["out.json"]);
  });

  it("gives the new file the mode it is asked for", () => {
    const file = join(dir, "script.sh");
    writeFileSync(file, "old");
    writeFileAtomic(file, "new", { mode: 0o755, fsync: true });
    expect(statSync(file).mode & 0o777).toBe(0o755);
  });

  it("leaves the old content and no temp file when the rename fails", () => {
    const target = join(dir, "is-a-folder");
    mkdirSync(join(target, "inside"), { recursive: true });
    expect(() => writeFileAtomic(target, "x")).toThrow();
    expect(readdirSync(dir).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  it("leaves the file and no temp file when beforeRename says no", () => {
    const file = join(dir, "checked.json");
    writeFileSync(file, "old");
    expect(writeFileAtomic(file, "new", { beforeRename: () => false })).toBe(false);
    expect(readFileSync(file, "utf8")).toBe("old");
    expect(readdirSync(dir).filter((name) => name.startsWith(".checked.json."))).toEqual([]);
  });

  it("removes the temp files of dead writers only", () => {
    const folder = mkdtempSync(join(tmpdir(), "meshflow-stale-"));
    const file = join(folder, "prd.json");
    writeFileSync(file, "{}");
    // pid 999999999 is above any pid_max; the parent of this process is alive.
    const dead = ".prd.json.999999999.3.tmp";
    const alive = `.prd.json.${process.ppid}.0.tmp`;
    for (const name of [dead, alive, ".other.json.999999999.0.tmp"]) writeFileSync(join(folder, name), "");
    expect(removeStaleTempFiles(file)).toEqual([dead]);
    expect(readdirSync(folder).sort()).toEqual([".other.json.999999999.0.tmp", alive, "prd.json"].sort());
  });
});

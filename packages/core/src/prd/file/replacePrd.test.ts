import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type PrdVersion, prdDigest, replacePrd } from "./replacePrd.js";

function prd(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), "meshflow-replace-")), "prd.json");
  writeFileSync(file, text);
  return file;
}

/** The file's version now. */
function readVersion(file: string): PrdVersion {
  const { ino, mode } = statSync(file);
  return { digest: prdDigest(file), ino, mode: mode & 0o7777 };
}

describe("replacePrd", () => {
  it("replaces a file that is still the version it was made from", () => {
    const file = prd('{"a": 1}\n');
    expect(replacePrd(file, '{"a": 2}\n', readVersion(file))).toEqual({ kind: "replaced" });
    expect(readFileSync(file, "utf8")).toBe('{"a": 2}\n');
  });

  it("leaves a file saved since it was read as it is", () => {
    const file = prd('{"a": 1}\n');
    const version = readVersion(file);
    writeFileSync(file, '{"a": 1, "b": 1}\n');
    expect(replacePrd(file, '{"a": 2}\n', version)).toEqual({ kind: "changed" });
    expect(readFileSync(file, "utf8")).toBe('{"a": 1, "b": 1}\n');
  });

  // Regression: a save in place between the check and the rename went into the file the rename
  // replaced, which nobody opens again: the save was lost without a trace.
  it("hands back a save in place that lands between its check and its rename", () => {
    const file = prd('{"a": 1}\n');
    const replaced = replacePrd(file, '{"a": 2}\n', readVersion(file), () => {
      writeFileSync(file, '{"a": 1, "saved": true}\n'); // an editor saving in place, right then
      return true;
    });
    expect(replaced).toEqual({ kind: "displaced", text: '{"a": 1, "saved": true}\n' });
    expect(readFileSync(file, "utf8")).toBe('{"a": 2}\n');
  });
});

import { chmodSync, mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { userCacheDir } from "./userCacheDir.js";

describe("userCacheDir", () => {
  it("creates meshflow/<name> under XDG_CACHE_HOME, owner-only", () => {
    const home = mkdtempSync(join(tmpdir(), "meshflow-cache-"));
    const dir = userCacheDir("agents", { env: { XDG_CACHE_HOME: home } });
    expect(dir).toBe(join(home, "meshflow", "agents"));
    expect(statSync(dir as string).mode & 0o777).toBe(0o700);
  });

  it("refuses a folder others may write to", () => {
    const dir = join(mkdtempSync(join(tmpdir(), "meshflow-cache-")), "shared");
    expect(userCacheDir("x", { dir })).toBe(dir);
    chmodSync(dir, 0o777);
    expect(userCacheDir("x", { dir })).toBeUndefined();
  });
});

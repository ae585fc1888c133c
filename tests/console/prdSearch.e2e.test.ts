import { closeSync, ftruncateSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_PRD_SEARCH, type PrdListing } from "@meshflow/console";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, type TestBrowser } from "../helpers/browser.js";
import { startFlowConsole } from "../helpers/flowConsole.js";
import { testStories } from "../helpers/flowWorkspace.js";

// The Start a run form looks for the project's PRDs within bounds (folders deep, PRDs listed, files
// looked at, bytes a file, story ids a PRD) that were constants nobody saw: a PRD past one of them was
// simply missing from the list. `flow console --prd-depth` and `--max-prds` set the first two, and the
// form and GET /api/prds say what a bound left out. The real `flow console`, real HTTP, chromium.

const prd = (count: number) => JSON.stringify({ project: "P", userStories: testStories(Array(count).fill({})) });

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "meshflow-console-prd-search-"));
  // 501 stories: one more than the form lists the ids of.
  writeFileSync(join(dir, "a.json"), prd(501));
  writeFileSync(join(dir, "b.json"), prd(1));
  writeFileSync(join(dir, "c.json"), prd(1));
  // Sparse: 9 MiB by its size, over the 8 MiB a candidate may have, using no disk.
  const fd = openSync(join(dir, "big.json"), "w");
  ftruncateSync(fd, 9 * 1024 * 1024);
  closeSync(fd);
  // Sorted before the files: looked into first, its PRD two folders down.
  mkdirSync(join(dir, "0", "1"), { recursive: true });
  writeFileSync(join(dir, "0", "1", "deep.json"), prd(1));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function listing(url: string): Promise<PrdListing> {
  const res = await fetch(new URL("/api/prds", url));
  expect(res.status).toBe(200);
  return (await res.json()) as PrdListing;
}

describe("flow console's PRD search", { timeout: 120_000 }, () => {
  it("lists within its default bounds, the same as the console package's, and says what they left out", async () => {
    const flowConsole = await startFlowConsole([], { cwd: dir });
    try {
      const all = await listing(flowConsole.url);
      expect(all.bounds).toEqual(DEFAULT_PRD_SEARCH);
      expect(all.prds.map((p) => p.path)).toEqual(["0/1/deep.json", "a.json", "b.json", "c.json"]);
      expect(all.prds[1]?.stories).toHaveLength(500);
      expect(all.prds[1]?.storyCount).toBe(501);
      expect(all.truncated).toBe(true);
      expect(all.skipped).toEqual({
        prds: false,
        unread: false,
        tooLarge: 1,
        tooLargePaths: ["big.json"],
        deeperFolders: 0,
      });
    } finally {
      await flowConsole.stop();
    }
  });

  it("looks --prd-depth folders deep and lists --max-prds PRDs; the form says what was left out", async () => {
    const flowConsole = await startFlowConsole(["--prd-depth", "1", "--max-prds", "2"], { cwd: dir });
    const browser: TestBrowser = await launchBrowser();
    try {
      const cut = await listing(flowConsole.url);
      expect(cut.bounds).toEqual({ ...DEFAULT_PRD_SEARCH, depth: 1, maxPrds: 2 });
      expect(cut.prds.map((p) => p.path)).toEqual(["a.json", "b.json"]);
      expect(cut.truncated).toBe(true);
      expect(cut.skipped).toEqual({
        prds: true,
        unread: false,
        tooLarge: 1,
        tooLargePaths: ["big.json"],
        deeperFolders: 1,
      });

      const { page } = browser;
      await page.goto(`${flowConsole.url}#/runs`);
      await page.locator("summary", { hasText: "Start a run" }).click();
      const form = page.getByRole("form", { name: "Start a run" });
      const options = await form.getByLabel("PRD", { exact: true }).locator("option").allTextContents();
      expect(options.map((o) => o.split(" ")[0])).toEqual(["a.json", "b.json"]);
      const notes = form.getByRole("list", { name: "What the PRD search left out" });
      const text = (what: string) => notes.locator(`[data-skipped="${what}"]`).textContent();
      expect(await text("prds")).toContain("Only the first 2 PRDs found are listed; there are more");
      expect(await text("prds")).toContain("flow console --max-prds <n>");
      expect(await text("tooLarge")).toContain("1 file over 8 MiB not read: big.json");
      expect(await text("deeperFolders")).toContain("1 folder at depth 1, the search's bound, not looked into");
      expect(await text("deeperFolders")).toContain("flow console --prd-depth <n>");
      expect(await notes.locator('[data-skipped="unread"]').count()).toBe(0);
      expect(await form.locator('[data-skipped="storyIds"]').textContent()).toContain(
        "The first 500 of 501 story ids are listed; choosing none runs all of them.",
      );
      await browser.screenshot("console-prd-search-bounds");
      // A PRD whose ids are all listed says nothing of them.
      await form.getByLabel("PRD", { exact: true }).selectOption("b.json");
      expect(await form.locator('[data-skipped="storyIds"]').count()).toBe(0);
    } finally {
      await browser.close();
      await flowConsole.stop();
    }
  });
});

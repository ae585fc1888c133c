import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { ROOT } from "./runFlow.js";

/** Debian's chromium (scripts/ensure-chromium installs it); FLOW_TEST_CHROMIUM points elsewhere. */
const CHROMIUM = process.env.FLOW_TEST_CHROMIUM ?? "/usr/bin/chromium";

/** Where browser tests keep their screenshots (git-ignored, kept by CI as artifacts). */
const ARTIFACTS = join(ROOT, "test-artifacts");

/** Flags that let chromium run headless in containers and CI, with nothing reaching the network. */
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** A real chromium with a fresh profile, driven by playwright-core. */
export interface TestBrowser {
  context: BrowserContext;
  page: Page;
  /** Saves a full-page screenshot as `test-artifacts/<name>.png`; returns its path. */
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

/** Starts chromium with a fresh `--user-data-dir` and opens one page. */
export async function launchBrowser(): Promise<TestBrowser> {
  const profile = mkdtempSync(join(tmpdir(), "meshflow-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 900 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async screenshot(name) {
      mkdirSync(ARTIFACTS, { recursive: true });
      const file = join(ARTIFACTS, `${name}.png`);
      await page.screenshot({ path: file, fullPage: true });
      return file;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

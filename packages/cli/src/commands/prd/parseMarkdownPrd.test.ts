import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseMarkdownPrd } from "./parseMarkdownPrd.js";

const fixture = (name: string) =>
  readFileSync(new URL(`../../../../../tests/fixtures/prd-markdown/${name}`, import.meta.url), "utf8");

describe("parseMarkdownPrd", () => {
  it("reads ralph's shape: title, introduction, stories in order with checkbox criteria (checked or not)", () => {
    const prd = parseMarkdownPrd(fixture("ralph-prd.md"));
    expect(prd.title).toBe("Reading List");
    expect(prd.description).toBe(
      "Let readers keep a list of articles to read later, mark them read, and see how many are left.",
    );
    expect(prd.stories.map((s) => [s.id, s.title, s.line])).toEqual([
      ["US-001", "Store reading list entries in the database", 15],
      ["US-002", "Show the reading list page", 23],
      ["US-003", "Mark an entry as read", 32],
    ]);
    expect(prd.stories[0]?.description).toBe(
      "As a developer, I need a table for reading list entries so they persist across sessions.",
    );
    // Inline Markdown is kept as written; the checkbox is not part of the criterion.
    expect(prd.stories[0]?.criteria).toEqual([
      "Add `reading_entries` table with columns `url`, `title`, `read` (default false)",
      "Generate and run the migration successfully",
      "Typecheck passes",
    ]);
    expect(prd.stories[2]?.criteria[0]).toBe('Each entry has a "Mark read" button');
    // Functional requirements (FR-1) are no stories; no section of theirs leaks into the last story.
    expect(prd.stories[2]?.criteria).toHaveLength(4);
    expect(prd.gates).toEqual([]);
  });

  it("reads ralph-tui's chat output: only between [PRD] and [/PRD], quality gates for all and for UI stories", () => {
    const prd = parseMarkdownPrd(fixture("ralph-tui-prd.md"));
    expect(prd.title).toBe("Offline Mode for the Notes App");
    expect(prd.stories.map((s) => s.id)).toEqual(["US-001", "US-002", "US-003"]);
    // Lines count from the file's start, the chat's words before [PRD] included.
    expect(prd.stories[0]?.line).toBe(26);
    expect(prd.gates.map((g) => [g.command, g.uiOnly])).toEqual([
      ["npm run typecheck", false],
      ["npm run lint && npm run format:check", false],
      ['npm test -- --grep "offline" | tee out.txt', false],
      [undefined, true],
    ]);
    expect(prd.gates[3]?.text).toBe("Verify in browser using dev-browser skill");
    expect(prd.stories[2]?.criteria).toEqual([
      'A badge with the text "Offline" is shown in the header while offline',
      "The badge disappears within 2 seconds of the connection returning",
    ]);
  });

  it("reads bullets, criteria headings and bare labels, field lines, and stories without an id", () => {
    const prd = parseMarkdownPrd(fixture("plain-bullets.md"));
    expect(prd.description).toBe(
      "Accountants need the month's invoices as a CSV file they can import into their own tools.",
    );
    const [endpoint, button, audit] = prd.stories;
    expect(endpoint?.fields.type?.value).toBe("integration");
    expect(endpoint?.fields.priority).toEqual({ value: "1", line: 9 });
    expect(endpoint?.description).toBe("Add an HTTP endpoint that returns the month's invoices as CSV.");
    expect(endpoint?.criteria).toHaveLength(2);
    expect(button?.id).toBe("US-011");
    expect(button?.title).toBe("Export button");
    expect(button?.fields.dependsOn?.value).toBe("US-010");
    expect(button?.fields.steps?.value).toBe("1, 11");
    expect(button?.criteria).toEqual([
      "The button downloads `invoices-<month>.csv`",
      "The button is disabled while the export runs",
    ]);
    expect(button?.unlabelledCriteria).toBe(false);
    expect(audit?.id).toBeUndefined();
    expect(audit?.title).toBe("Audit the export for injection");
    expect(audit?.unlabelledCriteria).toBe(true);
    expect(audit?.criteria).toEqual([
      "A customer name starting with `=` is written with a leading `'`",
      "Works correctly",
    ]);
  });

  it("finds no story in notes without story headings", () => {
    expect(parseMarkdownPrd(fixture("no-stories.md")).stories).toEqual([]);
  });

  it("takes a US-<n> heading as a story in any section, and nested criteria as criteria of their own", () => {
    const prd = parseMarkdownPrd(
      ["# PRD: X", "", "## Stories", "", "### US-7 Do it", "", "- [ ] a `b`", "  - [ ] nested one", ""].join("\n"),
    );
    expect(prd.stories.map((s) => [s.id, s.title, s.criteria])).toEqual([["US-7", "Do it", ["a `b`", "nested one"]]]);
  });
});

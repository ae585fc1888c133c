import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ReceivedRequest, ScriptedModelServer, ScriptedReply } from "@meshflow/model/testing";
import { afterEach, describe, expect, it } from "vitest";
import { codingAgentsInstalled, harnessCall, harnessFlags, harnessWorkspace } from "../helpers/codingAgents.js";
import { parseEvents } from "../helpers/flowWorkspace.js";

// Claude Code with its own tools on, two stories side by side in a git repository (--parallel 2): each
// program starts in its story's worktree, writes there with its own Write tool, and what it wrote
// reaches the main branch only through the merge queue. The pinned Claude Code, its scripted model,
// the real flow binary.

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const STORIES = { alpha: "Write alpha", beta: "Write beta" } as const;

/**
 * Which story a request is for (its title is in the task), and the branch Claude Code found checked out
 * where it started (the git status it reads in its working folder and tells the model).
 */
function whereAsked(request: ReceivedRequest): { story: keyof typeof STORIES; branch: string } | undefined {
  const sent = JSON.stringify(request.messages);
  const story = (Object.keys(STORIES) as Array<keyof typeof STORIES>).find((s) => sent.includes(STORIES[s]));
  const branch = /Current branch: ([^\s\\]+)/.exec(sent)?.[1];
  return story && branch ? { story, branch } : undefined;
}

describe.skipIf(!codingAgentsInstalled() && process.env.CI !== "true")(
  "claude-code with its own tools in isolated stories (flow run --parallel 2 in a git repository)",
  { timeout: 180_000 },
  () => {
    it("each program works in its story's worktree; both files reach main only through the merge commits", async () => {
      const { ws, server: s, script } = await harnessWorkspace("claude-code");
      server = s;
      const git = (...args: string[]) => execFileSync("git", args, { cwd: ws.dir, encoding: "utf8" });
      git("init", "-q", "-b", "main");
      git("config", "user.name", "Meshflow Test");
      git("config", "user.email", "test@meshflow.invalid");
      git("config", "commit.gpgsign", "false");
      ws.writePrd(
        Object.values(STORIES).map((title) => ({ title, mavenSteps: [1], mcpTools: { step1: ["filesystem"] } })),
      );
      git("add", "-A");
      git("commit", "-q", "-m", "start");

      const branches = { alpha: new Set<string>(), beta: new Set<string>() };
      script.handler = (request): ScriptedReply => {
        if (!request.tools.length) return { text: "Harness step" };
        const where = whereAsked(request);
        if (!where) return { text: "no story or branch in the request" };
        branches[where.story].add(where.branch);
        // The story's worktree: .flow/worktrees/<runId>/<storyId> for the branch flow/<runId>/<storyId>.
        const dir = join(ws.dir, ".flow", "worktrees", ...where.branch.split("/").slice(1));
        switch (request.messages.filter((m) => m.role === "assistant").length) {
          case 0:
            return {
              toolCalls: [
                {
                  name: "Write",
                  input: { file_path: join(dir, `${where.story}.txt`), content: `${where.story}\n` },
                },
              ],
            };
          case 1:
            return { toolCalls: [harnessCall("claude-code", "step_pass", { summary: `wrote ${where.story}.txt` })] };
          default:
            return { text: "Done." };
        }
      };

      const run = await ws.flow([
        "run",
        "prd.json",
        "--json",
        "--parallel",
        "2",
        "--harness-builtin-tools",
        ...harnessFlags("claude-code"),
      ]);
      const events = parseEvents(run.stdout);
      expect(run.code, `${run.stderr}\n${JSON.stringify(events.filter((e) => e.type.endsWith(".finished")))}`).toBe(0);
      expect(
        events.filter((e) => e.type === "story.finished").map((e) => e.type === "story.finished" && e.status),
      ).toEqual(["passed", "passed"]);

      // Each program was started in its own story's worktree (its branch checked out), not in the main tree.
      expect([...branches.alpha]).toEqual([expect.stringMatching(/^flow\/[^/]+\/US-001$/)]);
      expect([...branches.beta]).toEqual([expect.stringMatching(/^flow\/[^/]+\/US-002$/)]);

      for (const story of ["alpha", "beta"]) {
        const file = `${story}.txt`;
        expect(readFileSync(join(ws.dir, file), "utf8")).toBe(`${story}\n`);
        // On main's first-parent line the file arrived with a merge commit; it was added by the story's
        // own commit, on the story's branch.
        const arrived = git("log", "--first-parent", "--diff-filter=A", "--format=%P", "main", "--", file).trim();
        expect(arrived.split(" "), file).toHaveLength(2);
        const added = git("log", "--diff-filter=A", "--format=%P%x09%s", "main", "--", file).trim().split("\n");
        expect(added.some((line) => line.split("\t")[0]?.split(" ").length === 1 && line.includes("US-00"))).toBe(true);
      }
      // Nothing else was written in the main tree: only the runtime's own files are left.
      expect(git("status", "--porcelain").split("\n").filter(Boolean).sort()).toEqual([
        " M prd.json",
        "?? .flow/",
        "?? prd.progress.md",
      ]);
      expect(git("worktree", "list", "--porcelain").match(/^worktree /gm)).toHaveLength(1);
      // The changes the step recorded were read in the worktree it wrote in.
      const status = JSON.parse((await ws.flow(["status", "--json"])).stdout);
      const evidence = readFileSync(join(ws.dir, ".flow/runs", status.run.runId, "evidence.ndjson"), "utf8");
      expect(evidence).toContain("?? alpha.txt");
      expect(evidence).toContain("?? beta.txt");
    });
  },
);

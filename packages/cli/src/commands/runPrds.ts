import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join, resolve as resolvePath } from "node:path";
import {
  type FolderPrd,
  isPrdFolder,
  listPrdFolder,
  MeshflowError,
  outlineRunOrder,
  readPrdOutline,
} from "@meshflow/core";
import {
  asksForApproval,
  assertCleanTree,
  bookkeeping,
  type CarriedStep,
  Git,
  prdWorkflow,
  type RunOptions,
  type RunRecord,
  rerunPlan,
  type StoryHooks,
  StoryMemory,
  type StoryWorkspaces,
  startRun,
} from "@meshflow/runtime/host";
import { EXIT, type ExitCode } from "../exitCodes.js";
import type { Output } from "../output.js";
import { tuneV8ForRun } from "../runV8Flags.js";
import { processTracing } from "../tracing.js";
import { type ApprovalFlags, approvalDeps, approvalPolicy } from "./approvalSettings.js";
import { modelSettings } from "./modelSettings.js";
import { prdServers } from "./prdServers.js";
import {
  confirmation,
  drive,
  printSummaryTable,
  type RunFlags,
  report,
  type View,
  viewFor,
  viewListeners,
  withEnvironment,
} from "./runDriver.js";
import type { CommandEnvironment, EnvironmentOptions } from "./runEnvironment.js";
import { type Isolation, isolationOf, storyWorkspaces } from "./runWorktrees.js";

/** Options of `flow run`. */
export interface RunCommandOptions extends RunFlags, WorkflowFlags, ApprovalFlags {
  story?: string[];
  failFast?: boolean;
  /** Stories at most in progress at once (default 1). */
  parallel?: number;
  /** Where stories side by side work (default `worktree` in a git repository). */
  isolate?: Isolation;
  /** Which stories run together (default `band`). */
  parallelOrder?: "band" | "deps";
  /** The specialist a merge conflict goes to. */
  resolveConflicts?: string;
  dryRun?: boolean;
  runId?: string;
}

/** The PRD workflow's flags of `flow run`. */
interface WorkflowFlags {
  /** Stop after this many stories in total (over every PRD of a folder). */
  maxStories?: number;
  /** Commit each story that passed its gate (also `"git": {"commit": true}` in the PRD). */
  commit?: boolean;
  /** Run (and commit) in a repository with uncommitted changes. */
  allowDirty?: boolean;
  /** Create or check out the PRD's `branchName` before its run. */
  branch?: boolean;
  /** Re-run only the failed and blocked steps of this run's stories. */
  rerunFailed?: string;
}

/** One PRD to run, with what the run of it is limited to. */
interface Target {
  file: string;
  dependsOn: string[];
  /** Story ids to run (undefined: every story). */
  stories?: string[];
  carried?: Map<string, Map<number, CarriedStep>>;
  runId?: string;
}

/** Worse exit codes win: interrupted, environment, failure, usage, ok. */
function worse(a: ExitCode, b: ExitCode): ExitCode {
  const rank = (c: ExitCode) =>
    [EXIT.ok, EXIT.usage, EXIT.failure, EXIT.environment, EXIT.paused, EXIT.interrupted].indexOf(c);
  return rank(b) > rank(a) ? b : a;
}

/**
 * The non-dry path of `flow run`: one PRD file, every PRD of a folder (dependencies first), or the
 * failed stories of an earlier run (`--rerun-failed`). Each PRD run gets the PRD workflow's hooks
 * (progress log, story memory, commits with `--commit`).
 */
export async function runPrds(
  given: string | undefined,
  options: RunCommandOptions,
  output: Output,
): Promise<ExitCode> {
  const { FileRunStore } = await import("@meshflow/runtime/host");
  const store = new FileRunStore(options.store);
  let targets: Target[];
  let folder = false;
  let env: EnvironmentOptions = options;
  if (options.rerunFailed) {
    if (given)
      throw new MeshflowError("usage", "--rerun-failed <runId> runs that run's PRD: give no PRD argument with it");
    const plan = await rerunPlan(store, options.rerunFailed);
    const recorded = plan.record.options;
    env = {
      ...options,
      mcpConfig: options.mcpConfig ?? recorded.mcpConfig,
      routing: options.routing ?? recorded.routing,
      agents: options.agents ?? recorded.agents,
      skills: options.skills ?? recorded.skills,
      builtin: options.agents === undefined && options.skills === undefined && recorded.builtin === true,
    };
    targets = [{ file: plan.record.prd, dependsOn: [], stories: plan.stories, carried: plan.carried }];
  } else {
    if (!given)
      throw new MeshflowError("usage", "flow run needs a PRD file or a folder of PRDs (or --rerun-failed <runId>)");
    if (isPrdFolder(given)) {
      folder = true;
      if (options.runId) throw new MeshflowError("usage", "--run-id takes one PRD file, not a folder");
      const listed: FolderPrd[] = listPrdFolder(given);
      if (!listed.length)
        throw new MeshflowError("usage", `${given}: no PRD files (prd-*.json, *.prd.json) in this folder`);
      targets = listed.map((p) => ({ file: p.file, dependsOn: p.dependsOn, stories: options.story }));
    } else {
      // With its stories: the servers to start early are read from the same outline next.
      const deps = (readPrdOutline(given)?.dependsOn ?? []).map((d) => resolvePath(dirname(given), d));
      targets = [{ file: given, dependsOn: deps, stories: options.story, runId: options.runId }];
    }
  }
  const models = modelSettings(options);
  const warm = [...new Set(targets.flatMap((t) => prdServers(t.file, t.stories)))];
  // Each PRD's repository is looked for (a `git` process) while the environment loads.
  const repositories = new Map<string, Promise<Git | undefined>>();
  for (const target of targets) {
    if (repositories.has(target.file)) continue;
    const found = Git.find(dirname(resolvePath(target.file)));
    // A PRD not run after all (a folder's PRD still waiting) leaves its lookup unread: not an error.
    found.catch(() => undefined);
    repositories.set(target.file, found);
  }
  return withEnvironment({ ...env, models, warm }, async (built) => {
    tuneV8ForRun();
    const view = viewFor(options, output);
    let code: ExitCode = EXIT.ok;
    let remaining = options.maxStories ?? Number.POSITIVE_INFINITY;
    /** What --max-stories left for a later run, per PRD: every story named, so the user knows what is next. */
    const left: string[] = [];
    for (const target of targets) {
      if (remaining <= 0) {
        const ids = pendingStories(target) ?? [];
        if (ids.length) left.push(`${basename(target.file)} (not started): ${ids.join(", ")}`);
        continue;
      }
      const waiting = target.dependsOn.filter((dep) => readPrdOutline(dep)?.stories.some((s) => !s.passes) !== false);
      if (waiting.length) {
        output.err(
          `flow: ${basename(target.file)} not run: it depends on ${waiting.map((w) => basename(w)).join(", ")}, which has stories that have not passed`,
        );
        // Asked for by name, a PRD that cannot run is work not done; in a folder it just waits its turn.
        if (!folder) code = worse(code, EXIT.failure);
        continue;
      }
      const stories = selectStories(target, remaining, folder || options.maxStories !== undefined);
      if (options.maxStories !== undefined) {
        const rest = (pendingStories(target) ?? []).filter((id) => !stories?.includes(id));
        if (rest.length) left.push(`${basename(target.file)}: ${rest.join(", ")}`);
      }
      if (stories && !stories.length) {
        if (!options.json) output.err(`${basename(target.file)}: every story passed; nothing to run`);
        continue;
      }
      const ran = await runOne(
        repositories.get(target.file),
        { ...target, ...(stories ? { stories } : {}) },
        targets.map((t) => resolvePath(t.file)),
        options,
        built,
        models,
        view,
        output,
      );
      code = worse(code, ran.code);
      remaining -= ran.stories;
      if (ran.code === EXIT.interrupted || ran.code === EXIT.paused || (options.failFast && ran.code !== EXIT.ok))
        break;
    }
    if (left.length && !options.json) {
      output.err(`--max-stories ${options.maxStories} reached; left for a later run:`);
      for (const line of left) output.err(`  ${line}`);
    }
    return code;
  });
}

/**
 * The stories of a target's run: with a limit (or in a folder run) its stories that have not passed,
 * in run order, at most `limit`; otherwise undefined (every story, as a plain run).
 */
function selectStories(target: Target, limit: number, limited: boolean): string[] | undefined {
  if (!limited) return target.stories;
  const pending = pendingStories(target);
  if (!pending) return target.stories; // the run reports why the PRD is invalid
  return pending.slice(0, Number.isFinite(limit) ? limit : undefined);
}

/** A target's stories that have not passed (those asked for, when some are), in run order; undefined for an invalid PRD. */
function pendingStories(target: Target): string[] | undefined {
  const outline = readPrdOutline(target.file);
  if (!outline) return undefined;
  const wanted = target.stories ? new Set(target.stories) : undefined;
  return outlineRunOrder(outline)
    .filter((story) => !story.passes && (!wanted || wanted.has(story.id)))
    .map((story) => story.id);
}

/** Runs one PRD with the workflow's hooks; returns its exit code and how many stories concluded. */
async function runOne(
  /** The PRD's repository, looked for ahead (else now). */
  repository: Promise<Git | undefined> | undefined,
  target: Target,
  /** Every PRD of this command: their files and progress logs are the runtime's, not a dirty tree. */
  prdFiles: readonly string[],
  options: RunCommandOptions,
  command: CommandEnvironment,
  models: ReturnType<typeof modelSettings>,
  view: View,
  output: Output,
): Promise<{ code: ExitCode; stories: number }> {
  const { env, parts, recorded } = command;
  // The PRD's own fields only: the run that follows reads the stories itself.
  const { commit: prdCommit, branchName: branch } = readPrdOutline(target.file, { stories: false }) ?? {
    commit: false,
  };
  const commit = options.commit === true || prdCommit;
  const parallel = options.parallel ?? 1;
  const git = await (repository ?? Git.find(dirname(resolvePath(target.file))));
  const isolation = isolationOf(target.file, parallel, options.isolate, git);
  if (commit && parallel > 1 && isolation === "none")
    throw new MeshflowError(
      "usage",
      `${target.file}: --commit commits each story's changed files, which stories side by side in one working tree would mix; run it without --parallel or with --isolate worktree`,
    );
  if (options.resolveConflicts && isolation !== "worktree")
    throw new MeshflowError(
      "usage",
      "--resolve-conflicts resolves the merges of stories in worktrees: give --parallel n (n > 1) in a git repository",
    );
  if (parallel > 1 && !git && !options.json)
    output.err(
      `flow: warning: ${basename(target.file)} is not in a git repository: stories side by side share one folder, and stories that write files may write over each other`,
    );
  if ((commit || options.branch) && !git)
    throw new MeshflowError("usage", `${target.file} is not in a git repository: --commit and --branch need one`);
  if (git && commit && !options.allowDirty && isolation === "none") {
    const ours = bookkeeping(git, [...prdFiles, ...target.dependsOn], env.store.root);
    // A re-run's stories left their kept steps' changes uncommitted: those are theirs to commit.
    const latest = new StoryMemory(env.store.root).latest(target.file);
    const kept = new Set([...(target.carried?.keys() ?? [])].flatMap((id) => latest.get(id)?.files ?? []));
    await assertCleanTree(git, (path) => ours(path) || kept.has(path));
  }
  if (git && options.branch) {
    if (!branch) throw new MeshflowError("usage", `${target.file}: --branch needs a "branchName" in the PRD`);
    const created = await git.checkoutBranch(branch);
    if (!options.json) output.err(`${created ? "created and checked out" : "on"} branch ${branch}`);
  }
  const workflow = {
    commit,
    ...(target.dependsOn.length ? { related: target.dependsOn } : {}),
    ...(options.rerunFailed ? { rerunOf: options.rerunFailed } : {}),
  };
  const hooks = workflowHooks(target.file, workflow, env, git, options, output, target.carried, undefined, isolation);
  const workspaces = await storyWorkspaces(isolation, git, command, parts);
  const trace = (await processTracing())?.runSink();
  const approvals = approvalPolicy(options);
  const session = await startRun(
    {
      ...parts,
      hooks,
      ...(workspaces ? { workspaces } : {}),
      ...viewListeners(view),
      ...(trace ? { onEmitted: trace } : {}),
      ...confirmation(options, view),
      ...approvalDeps(approvals, options.waitForApproval),
      // At the start, before the view draws the stories (with --json: among the warnings at the end).
      ...(options.json ? {} : { onNotice: (message: string) => output.err(`flow: ${message}`) }),
    },
    {
      prdFile: target.file,
      runId: target.runId,
      stories: target.stories,
      failFast: options.failFast === true,
      ...(options.parallel ? { parallel: options.parallel } : {}),
      record: {
        mcpConfig: env.mcpConfig.file ? resolvePath(env.mcpConfig.file) : undefined,
        routing: options.routing ? resolvePath(options.routing) : undefined,
        agents: recorded.agents,
        skills: recorded.skills,
        ...(recorded.builtin ? { builtin: true } : {}),
        models,
        ...(options.callsPerMinute !== undefined ? { callsPerMinute: options.callsPerMinute } : {}),
        ...(parallel > 1 ? { isolate: isolation } : {}),
        ...(options.parallelOrder ? { parallelOrder: options.parallelOrder } : {}),
        ...(options.resolveConflicts ? { resolveConflicts: options.resolveConflicts } : {}),
        ...(asksForApproval(approvals) ? { approvals } : {}),
        workflow,
      },
    },
  );
  const summary = await drive(session, view, output, (id) => env.store.stopRequestFile(id));
  if (!options.json) await printSummaryTable(summary, env.store, output);
  const { passed, failed, blocked } = summary.counts;
  return { code: report(summary, options, output), stories: passed + failed + blocked };
}

/** The PRD workflow's hooks of a run: progress log, story memory, commits, kept steps of a re-run. */
function workflowHooks(
  prdFile: string,
  workflow: NonNullable<RunOptions["workflow"]>,
  env: CommandEnvironment["env"],
  git: Git | undefined,
  options: { json?: boolean | undefined },
  output: Output,
  carried?: Map<string, Map<number, CarriedStep>>,
  resumed?: { runId: string; log: ReadonlyArray<Record<string, unknown>> },
  isolation: Isolation = "none",
): StoryHooks {
  return prdWorkflow({
    ...(isolation === "worktree" ? { isolated: true } : {}),
    ...(resumed ? { earlierLog: resumed.log, resuming: resumed.runId } : {}),
    prdFile,
    storeRoot: env.store.root,
    related: workflow.related ?? [],
    commit: workflow.commit === true,
    ...(git ? { git } : {}),
    ...(carried ? { carried } : {}),
    onCommit: (c) => {
      if (!options.json) output.err(`committed ${c.commit.slice(0, 12)} ${c.message} (${c.files.length} file(s))`);
    },
  });
}

/**
 * The hooks of a resumed run, from what its record says of the workflow: the same progress log,
 * memory and commits; a re-run's kept steps are planned again from the run it re-runs.
 */
export async function resumedHooks(
  record: RunRecord,
  command: CommandEnvironment,
  options: { json?: boolean | undefined },
  output: Output,
): Promise<StoryHooks> {
  const { env } = command;
  const workflow = record.options.workflow ?? {};
  const git = await Git.find(dirname(record.prd));
  const carried = workflow.rerunOf ? (await rerunPlan(env.store, workflow.rerunOf)).carried : undefined;
  const log = join(env.store.root, "runs", record.runId, "log.ndjson");
  const earlier = existsSync(log)
    ? readFileSync(log, "utf8")
        .split("\n")
        .flatMap((line) => {
          try {
            return line ? [JSON.parse(line) as Record<string, unknown>] : [];
          } catch {
            return []; // a torn last line
          }
        })
    : [];
  return workflowHooks(
    record.prd,
    workflow,
    env,
    git,
    options,
    output,
    carried,
    { runId: record.runId, log: earlier },
    record.options.isolate ?? "none",
  );
}

/** The story worktrees of a resumed run that recorded `isolate: "worktree"`: the same ones, found again. */
export async function resumedWorkspaces(
  record: RunRecord,
  command: CommandEnvironment,
): Promise<StoryWorkspaces | undefined> {
  if (record.options.isolate !== "worktree") return undefined;
  const git = await Git.find(dirname(record.prd));
  if (!git)
    throw new MeshflowError("usage", `${record.prd} is no longer in a git repository: its run worked in worktrees`);
  return storyWorkspaces("worktree", git, command, command.parts);
}

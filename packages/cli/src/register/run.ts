import { Option } from "@commander-js/extra-typings";
import type { RunCommandOptions } from "../commands/runPrds.js";
import { cassetteOptions, modelOptions } from "./modelOptions.js";
import {
  agentsOption,
  approvalsOption,
  approveOption,
  callsPerMinuteOption,
  confirmDestructiveOption,
  executorOptions,
  flags,
  maxMessageBytesOption,
  maxPrdBytesOption,
  maxPrdStoriesOption,
  mcpConfigOption,
  positiveInt,
  type Registrar,
  RUN_EXIT_CODES_HELP,
  RUN_V8_HELP,
  routingOption,
  skillsOption,
  storeOption,
  waitForApprovalOption,
} from "./shared.js";

/** `flow run <prd.json>`. */
export const registerRun: Registrar = (program, { output, setExit }) => {
  cassetteOptions(
    modelOptions(
      executorOptions(
        program
          .command("run")
          .description("run a PRD: every story step through its specialist, then the completion gate")
          .argument(
            "[prd]",
            "the PRD file (only the completion gate writes to it: passes and notes), or a folder: every prd-*.json and *.prd.json in it, in name order, each after the PRDs its dependsOn names",
          )
          .addOption(mcpConfigOption())
          .addOption(routingOption())
          .addOption(agentsOption())
          .addOption(storeOption())
          .addOption(maxMessageBytesOption())
          .addOption(maxPrdStoriesOption())
          .addOption(maxPrdBytesOption())
          .addOption(skillsOption()),
      ),
    ),
  )
    .option("--story <id...>", "run only these stories")
    .option("--fail-fast", "start no further story after one fails or is blocked")
    .addOption(
      new Option(
        "--parallel <n>",
        "run up to n stories at once, in this process: stories of the same priority that do not dependsOn one another (see --parallel-order); each story's steps stay in order; in a git repository each story works in a worktree of its own and merges back when it passed (see --isolate) (default 1; flow resume keeps it)",
      ).argParser(positiveInt("--parallel")),
    )
    .addOption(
      new Option(
        "--isolate <how>",
        "with --parallel n > 1: worktree, each story in a git worktree of its own (.flow/worktrees/<runId>/<storyId>, branch flow/<runId>/<storyId>), committed and merged into the run's branch one at a time, its gate run again on the merged tree; none, every story in the one working tree (default: worktree in a git repository; flow resume keeps it)",
      ).choices(["worktree", "none"] as const),
    )
    .addOption(
      new Option(
        "--parallel-order <order>",
        "which stories run together with --parallel: band, stories of one priority that do not dependsOn one another; deps, any story whose dependsOn have passed, whatever its priority (default band; flow resume keeps it)",
      ).choices(["band", "deps"] as const),
    )
    .addOption(
      new Option(
        "--resolve-conflicts <specialist>",
        "with --isolate worktree: a merge conflict goes to this specialist as one more step in the story's worktree (the conflict markers in the files), then the merge is tried again (default: a conflict blocks the story with merge_conflict)",
      ),
    )
    .option(
      "--dry-run",
      "resolve every scripted call against the discovered repertoires and size each model request; call nothing",
    )
    .option("--json", "print the run events as NDJSON on stdout")
    .addOption(
      new Option("--max-stories <n>", "stop after n stories in total, over every PRD (default: no limit)").argParser(
        positiveInt("--max-stories"),
      ),
    )
    .option(
      "--commit",
      'commit each story that passed its gate: only the files its steps changed, "<type>: <id> <title>" with a Meshflow-Run trailer (also "git": {"commit": true} in the PRD; with --parallel, each story commits in its worktree; default off)',
    )
    .option(
      "--allow-dirty",
      "commit even though the repository had uncommitted changes at the start (default: refused, exit 2)",
    )
    .option("--branch", "create or check out the PRD's branchName before its run (default: stay on the current branch)")
    .addOption(
      new Option(
        "--rerun-failed <runId>",
        "run again only the failed and blocked stories of that run, keeping their passed steps' results (no PRD argument)",
      ),
    )
    .addOption(confirmDestructiveOption())
    .addOption(approveOption())
    .addOption(approvalsOption())
    .addOption(waitForApprovalOption())
    .addOption(callsPerMinuteOption("the run's guard"))
    .addOption(new Option("--run-id <id>", "the new run's id (default: time-based)"))
    .addHelpText(
      "after",
      `\nResume an interrupted or paused run with: flow resume <runId>
Decide calls waiting for approval with: flow approve <runId> [<callKey>… | --all] [--deny] [--reason <text>]
Beside each PRD, <name>.progress.md gets one section per concluded story (outcome, summary, files, learnings).
${RUN_EXIT_CODES_HELP}
  (a folder run exits with the worst code of its PRDs; a repository with uncommitted changes under --commit: 2)

${RUN_V8_HELP}`,
    )
    .action(async (file, options) => {
      const given = flags<RunCommandOptions>()(options);
      // What needs no server is refused before anything heavy loads (a busy PRD at once, not after start-up).
      const refused = (await import("../commands/refuseEarly.js")).refusedEarly(file, given, output);
      if (refused !== undefined) return setExit(refused);
      // Before the run's modules load: its servers start meanwhile (see prestartFor).
      const started = (await import("../commands/prestart.js")).prestartFor(file, given);
      try {
        const { runCommand } = await import("../commands/run.js");
        setExit(await runCommand(file, given, output));
      } finally {
        await started?.close();
      }
    });
};

import { Option } from "@commander-js/extra-typings";
import type { EnqueueOptions } from "../commands/enqueue.js";
import {
  approvalsOption,
  approveOption,
  EXIT_CODES_HELP,
  flags,
  maxPrdBytesOption,
  maxPrdStoriesOption,
  positiveInt,
  type Registrar,
  redisClusterOption,
  redisOption,
  redisPrefixOption,
} from "./shared.js";

/** `flow enqueue <prd.json…>`. */
export const registerEnqueue: Registrar = (program, { output, setExit }) => {
  program
    .command("enqueue")
    .description("queue PRD runs on Redis for flow worker processes (the same content queued twice is one run)")
    .argument(
      "<prd.json...>",
      "PRD files; each run carries its file's content. Or one folder: its prd-*.json and *.prd.json, a PRD queued only once the PRDs its dependsOn names passed (with --wait, in waves)",
    )
    .addOption(redisOption())
    .addOption(redisClusterOption())
    .addOption(redisPrefixOption())
    .addOption(maxPrdStoriesOption())
    .addOption(maxPrdBytesOption())
    .addOption(approveOption())
    .addOption(approvalsOption())
    .option("--per-story", "one job per story under a parent job (stories run in parallel on the workers)")
    .option("--story <id...>", "run only these stories")
    .option(
      "--model <provider:model-id>",
      "the model for every story of these runs (over the workers' --model, the PRD's and stories' model, FLOW_MODEL)",
    )
    .option(
      "--harness <name>",
      "the coding agent that works these runs' steps where a model would (claude-code, opencode, codex; over the workers' --harness, the PRD's and stories' harness)",
    )
    .option("--fail-fast", "start no further story after one fails or is blocked (whole-PRD runs)")
    .addOption(
      new Option(
        "--parallel <n>",
        'run up to n of a run\'s stories at once on its worker, as flow run --parallel does (whole-PRD runs; default 1; not with "git": {"commit": true})',
      ).argParser(positiveInt("--parallel")),
    )
    .option(
      "--wait",
      "wait for the runs to finish, then mark passed stories in the PRD files (the completion gate's write)",
    )
    .option(
      "--json",
      'print {"runs": [{"file", "runId", "duplicate", "status"?}]} (a folder: one such document per wave)',
    )
    .addHelpText(
      "after",
      `\nWorkers run the PRD with their own MCP config, agents and skills; see flow worker.\n${EXIT_CODES_HELP}`,
    )
    .action(async (files: string[], options) => {
      const { isPrdFolder } = await import("@meshflow/core");
      const [only] = files;
      if (files.length === 1 && only && isPrdFolder(only)) {
        const { enqueueFolderCommand } = await import("../commands/enqueueFolder.js");
        setExit(await enqueueFolderCommand(only, options, output));
        return;
      }
      const { enqueueCommand } = await import("../commands/enqueue.js");
      setExit(await enqueueCommand(files, flags<EnqueueOptions>()(options), output));
    });
};

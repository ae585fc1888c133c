import { Option } from "@commander-js/extra-typings";
import type { WorkerOptions } from "../commands/worker.js";
import { modelOptions } from "./modelOptions.js";
import {
  agentsOption,
  callsPerMinuteOption,
  EXIT_CODES_HELP,
  flags,
  maxMessageBytesOption,
  maxPrdBytesOption,
  maxPrdStoriesOption,
  mcpConfigOption,
  positiveInt,
  type Registrar,
  redisClusterOption,
  redisOption,
  redisPrefixOption,
  routingOption,
  skillsOption,
  storeOption,
} from "./shared.js";

/** `flow worker`. */
export const registerWorker: Registrar = (program, { output, setExit }) => {
  const worker = program
    .command("worker")
    .description("process queued runs and tool calls from Redis until SIGTERM (which drains, then exits 0)")
    .addOption(redisOption())
    .addOption(redisClusterOption())
    .addOption(redisPrefixOption())
    .addOption(
      new Option("--concurrency <n>", "tool calls at once").argParser(positiveInt("--concurrency")).default(16),
    )
    .addOption(
      new Option("--run-concurrency <n>", "runs (PRDs or stories) at once")
        .argParser(positiveInt("--run-concurrency"))
        .default(4),
    )
    .addOption(
      new Option("--queues <queue...>", "queues to process: runs, calls (default both)").argParser(
        (value: string, previous: string[] | undefined) => [
          ...(previous ?? []),
          ...value
            .split(",")
            .map((q) => q.trim())
            .filter(Boolean),
        ],
      ),
    )
    .addOption(callsPerMinuteOption("this worker's guard"))
    .addOption(mcpConfigOption())
    .addOption(routingOption())
    .addOption(agentsOption())
    .addOption(skillsOption())
    .addOption(storeOption())
    .addOption(maxMessageBytesOption())
    .addOption(maxPrdStoriesOption())
    .addOption(maxPrdBytesOption())
    .addOption(
      new Option(
        "--workdir <dir>",
        "the project checkout queued PRDs run in (verify commands, relative paths)",
      ).default("."),
    )
    .option("--name <name>", "worker name shown on jobs and in the dashboard (default <host>:<pid>)")
    .addOption(
      new Option("--lock-duration <ms>", "job lock time: a dead worker's jobs go back to the queue after it")
        .argParser(positiveInt("--lock-duration"))
        .default(30_000),
    )
    .addOption(
      new Option("--stalled-interval <ms>", "how often to look for jobs of dead workers")
        .argParser(positiveInt("--stalled-interval"))
        .default(30_000),
    )
    .addOption(
      new Option("--max-stalled <n>", "a job whose worker died more often than this fails")
        .argParser(positiveInt("--max-stalled"))
        .default(2),
    )
    .addOption(
      new Option(
        "--drain-timeout <ms>",
        "SIGTERM/Ctrl-C drains at most this long, then stops anyway (Redis gone, a call that does not end)",
      )
        .argParser(positiveInt("--drain-timeout"))
        .default(30_000),
    );
  modelOptions(worker)
    .addHelpText(
      "after",
      `\nRefuses (exit 3) a Redis that is unreachable or whose maxmemory-policy is not noeviction.\n${EXIT_CODES_HELP}`,
    )
    .action(async (options) => {
      const { workerCommand } = await import("../commands/worker.js");
      setExit(await workerCommand(flags<WorkerOptions>()(options), output));
    });
};

import { Option } from "@commander-js/extra-typings";
import type { ConsoleCommandOptions } from "../commands/console.js";
import {
  agentsOption,
  EXIT_CODES_HELP,
  flags,
  mcpConfigOption,
  nonNegativeInt,
  positiveInt,
  type Registrar,
  redisOption,
  redisPrefixOption,
  routingOption,
  storeOption,
} from "./shared.js";

/**
 * The Start a run form's bounds, the same as `DEFAULT_PRD_SEARCH` of `@meshflow/console` (kept here so
 * registering commands loads no package; a test holds them equal).
 */
const DEFAULT_PRD_DEPTH = 4;
const DEFAULT_MAX_PRDS = 200;

/** `flow console`: the web console of runs, queue, tools, coverage and health. */
export const registerConsole: Registrar = (program, { output, setExit }) => {
  program
    .command("console")
    .description("serve the web console (runs, queue, tools, coverage, health) until Ctrl-C")
    .addOption(
      new Option("--port <port>", "TCP port (0 picks a free one)").argParser(nonNegativeInt("--port")).default(4100),
    )
    .addOption(
      new Option("--host <host>", "address to bind; beyond loopback FLOW_SERVE_TOKEN is required").default("127.0.0.1"),
    )
    .addOption(storeOption())
    .addOption(mcpConfigOption())
    .addOption(routingOption())
    .addOption(agentsOption())
    .addOption(
      new Option("--bull-board <url>", "Bull Board's address (flow dashboard), linked from the Queue page").default(
        "http://127.0.0.1:3000/",
      ),
    )
    .addOption(
      new Option(
        "--skills <dir>",
        "skills folder (capabilities.yaml, capability-overrides.yaml, …); overrides are written to <dir>/capability-overrides.yaml; default ./skills merged over the built-in skills, overrides to ./skills",
      ).env("FLOW_SKILLS"),
    )
    .addOption(redisOption("Redis of the queues (the Queue page); tool classifications are kept there too"))
    .addOption(redisPrefixOption())
    .option(
      "--cache <file>",
      "classification cache file when no Redis is configured",
      ".flow/cache/classifications.json",
    )
    .addOption(
      new Option(
        "--prd-depth <n>",
        "how many folders below this one the Start a run form looks in for PRDs (0: this folder only)",
      )
        .argParser(nonNegativeInt("--prd-depth"))
        .default(DEFAULT_PRD_DEPTH),
    )
    .addOption(
      new Option("--max-prds <n>", "most PRDs the Start a run form lists (it says when there are more)")
        .argParser(positiveInt("--max-prds"))
        .default(DEFAULT_MAX_PRDS),
    )
    .option("--json", "print {url} as JSON on stdout once listening")
    .addHelpText(
      "after",
      `
Without --redis (or FLOW_REDIS_URL) the Queue page says how to enable it. The Tools page discovers
the MCP config's servers when first opened, as flow tools classify does. Runs started from the Runs
page run flow run in this folder, on its PRD files, with this command's --mcp-config, --routing,
--agents and --skills.

The Start a run form lists the JSON files with userStories in this folder, --prd-depth folders deep
(hidden folders, node_modules, dist, build, coverage and test-artifacts skipped; symbolic links never
followed): at most --max-prds PRDs, found among no more than 2,000 .json files, each read only when
at most 8 MiB (8388608 bytes), and of each PRD its first 500 story ids (choosing none still runs them
all). The form, and GET /api/prds (truncated, skipped), say when one of these bounds left something out.

Environment:
  FLOW_SERVE_TOKEN   bearer token every request must carry (Authorization: Bearer <token>, or open
                     /?token=<token> once in the browser); without it only a loopback --host is
                     allowed; beyond loopback it needs at least 16 non-space characters

JSON API: GET /api/runs, /api/runs/<id>, /api/runs/<id>/workers, /api/prds, /api/stream
(server-sent events), /api/queue, /api/tools, /api/coverage, /api/health; PUT
/api/tools/<tool>/capabilities; POST /api/runs, /api/runs/<id>/resume, /api/runs/<id>/stop,
/api/guard/stop, /api/guard/unlock (docs/console-api.md).
${EXIT_CODES_HELP}`,
    )
    .action(async (options) => {
      const { consoleCommand } = await import("../commands/console.js");
      setExit(await consoleCommand(flags<ConsoleCommandOptions>()(options), output));
    });
};

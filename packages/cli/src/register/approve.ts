import { Option } from "@commander-js/extra-typings";
import type { ApproveOptions } from "../commands/approve.js";
import {
  EXIT_CODES_HELP,
  flags,
  type Registrar,
  redisClusterOption,
  redisPrefixOption,
  storeOption,
} from "./shared.js";

/** `flow approve <runId> [<callKey>…]`. */
export const registerApprove: Registrar = (program, { output, setExit }) => {
  program
    .command("approve")
    .description(
      "approve (or deny) calls of a run that wait for a person's approval (--approve, the approvals rules), from any process or machine that sees the run store",
    )
    .argument("<runId>", "the run whose calls wait (see flow status)")
    .argument(
      "[callKey...]",
      "the calls to decide: their keys as flow status and the pause message list them (with or without the run id)",
    )
    .option("--all", "every call the run waits for")
    .option(
      "--deny",
      "deny instead of approve: the specialist gets approval_denied with the reason as the tool's error",
    )
    .option(
      "--reason <text>",
      "why: recorded with the decision, shown in flow status; a denial's reason is the tool's error",
    )
    .addOption(storeOption())
    .addOption(
      // No FLOW_REDIS_URL default: a run of this machine's store is decided here unless --redis says otherwise.
      new Option(
        "--redis <url>",
        "a queued run's Redis (flow enqueue): its approvals are kept there, and a flow worker takes it up again once decided",
      ),
    )
    .addOption(redisClusterOption(false))
    .addOption(redisPrefixOption())
    .option("--json", 'print {"runId", "decisions": [{key, argsDigest, approved, reason, by, time}]}')
    .addHelpText(
      "after",
      `
A decision holds for the arguments the call waits with: a call that comes back with other arguments
waits again. An approved call runs once when the run goes on: its waiting process (flow run
--wait-for-approval) picks the decision up, or flow resume <runId> continues it.
Exit 2 for an unknown run or call key (the message lists the keys that wait), 1 when the run waits
for no approval.
${EXIT_CODES_HELP}`,
    )
    .action(async (runId: string, keys: string[], options) => {
      const { approveCommand } = await import("../commands/approve.js");
      setExit(await approveCommand(runId, keys, flags<ApproveOptions>()(options), output));
    });
};

import { randomUUID } from "node:crypto";
import { hostname } from "node:os";

/** What a process says of itself on every span it exports, besides its `service.name`. */
export interface ProcessFacts {
  /** `service.version`: the version of the program (`flow --version`). */
  serviceVersion?: string;
  /** `meshflow.worker.name`: a `flow worker`'s `--name` (its default `host:pid`). */
  workerName?: string;
}

/** The resource attribute of a worker's name. */
const WORKER_NAME_ATTRIBUTE = "meshflow.worker.name";

/**
 * The resource attributes of this process, so a trace viewer tells which machine, process and worker
 * ran a span: `service.name`, `service.version`, `service.instance.id` (a UUID per process),
 * `host.name`, `process.pid` and, for a worker, `meshflow.worker.name`. The command line is not among
 * them: it may hold a password (a Redis URL).
 */
export function processResource(serviceName: string, facts: ProcessFacts = {}): Record<string, string | number> {
  return {
    "service.name": serviceName,
    ...(facts.serviceVersion ? { "service.version": facts.serviceVersion } : {}),
    "service.instance.id": randomUUID(),
    "host.name": hostname(),
    "process.pid": process.pid,
    ...(facts.workerName ? { [WORKER_NAME_ATTRIBUTE]: facts.workerName } : {}),
  };
}

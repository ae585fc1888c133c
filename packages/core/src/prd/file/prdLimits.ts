import { MeshflowError } from "../../errors/MeshflowError.js";

/** How large a PRD meshflow reads: stories and bytes. */
export interface PrdLimits {
  /** Most stories in `userStories`. */
  maxStories: number;
  /** Most bytes of the file. */
  maxBytes: number;
}

/**
 * The default limits: 100,000 stories and 256 MiB, five times the 20,000-story PRDs of the benchmarks
 * (about 6 MB each), far below what would exhaust a laptop's memory.
 */
const DEFAULT_PRD_LIMITS: Readonly<PrdLimits> = { maxStories: 100_000, maxBytes: 256 * 1024 * 1024 };

/** The environment variable that sets {@link PrdLimits.maxStories} for every command of the process. */
const MAX_PRD_STORIES_ENV = "FLOW_MAX_PRD_STORIES";
/** The environment variable that sets {@link PrdLimits.maxBytes} for every command of the process. */
const MAX_PRD_BYTES_ENV = "FLOW_MAX_PRD_BYTES";

function positive(env: NodeJS.ProcessEnv, name: string, fallback: number, unit: string): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new MeshflowError("usage", `${name} must be a positive whole number of ${unit}, not "${raw}"`);
  return value;
}

/**
 * The PRD limits of this process: `FLOW_MAX_PRD_STORIES` and `FLOW_MAX_PRD_BYTES` when set (the CLI's
 * `--max-prd-stories` and `--max-prd-bytes` set them), else {@link DEFAULT_PRD_LIMITS}. A value that is
 * not a positive whole number is a `usage` error: a typo must not silently mean the default.
 */
export function prdLimits(env: NodeJS.ProcessEnv = process.env): PrdLimits {
  return {
    maxStories: positive(env, MAX_PRD_STORIES_ENV, DEFAULT_PRD_LIMITS.maxStories, "stories"),
    maxBytes: positive(env, MAX_PRD_BYTES_ENV, DEFAULT_PRD_LIMITS.maxBytes, "bytes"),
  };
}

/** `prd_too_large`: the file holds more bytes than `limits.maxBytes` (`bytes`: its size, or what was read so far). */
export function tooManyBytes(file: string, bytes: number, limits: PrdLimits): MeshflowError {
  return new MeshflowError(
    "prd_too_large",
    `${file}: ${bytes} bytes, more than the PRD limit of ${limits.maxBytes}; raise it with --max-prd-bytes <bytes> or ${MAX_PRD_BYTES_ENV}`,
    { details: { file, bytes, limit: limits.maxBytes } },
  );
}

/** `prd_too_large`: `userStories` holds more than `limits.maxStories` stories. */
export function tooManyStories(file: string, limits: PrdLimits): MeshflowError {
  return new MeshflowError(
    "prd_too_large",
    `${file}: more than ${limits.maxStories} stories in $.userStories, the PRD limit; raise it with --max-prd-stories <n> or ${MAX_PRD_STORIES_ENV}`,
    { details: { file, path: "$.userStories", limit: limits.maxStories } },
  );
}

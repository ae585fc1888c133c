import { z } from "zod";

/**
 * What `run_command` may pass to one allowed executable. `subcommands`: when set, the first argument must
 * be one of them (so no option can come before it). `deniedFlags`: refused anywhere in the arguments, also
 * as `--flag=value`, as an abbreviation of a long flag (`--upload-pa`), and a two-character one with its
 * value attached (`-cx=y`). `pathsInsideRootWith`: when one of these flags is present, every other
 * argument after the subcommand that is not an option must be a path inside the workspace root.
 */
export const ArgumentPolicySchema = z.strictObject({
  subcommands: z.array(z.string().min(1)).nullable().optional(),
  deniedFlags: z.array(z.string().regex(/^-/, "a denied flag starts with '-'")).optional(),
  pathsInsideRootWith: z.array(z.string().regex(/^-/, "a flag starts with '-'")).optional(),
});

/** One executable's argument policy. */
export type ArgumentPolicy = z.infer<typeof ArgumentPolicySchema>;

/**
 * Built-in policies, used for an allowed executable of that name (or whose path ends in it) unless the
 * config's `argumentPolicy` names it; `{}` in the config lifts every restriction.
 */
export const DEFAULT_ARGUMENT_POLICIES: Readonly<Record<string, ArgumentPolicy>> = {
  git: {
    subcommands: ["status", "diff", "log", "show"],
    deniedFlags: [
      "-c",
      "--config-env",
      "--exec-path",
      "--git-dir",
      "--work-tree",
      "--upload-pack",
      "--receive-pack",
      "--exec",
      "--output",
      "--ext-diff",
      "--textconv",
      "--open-files-in-pager",
    ],
    pathsInsideRootWith: ["--no-index"],
  },
  npm: {
    subcommands: ["test", "run"],
    deniedFlags: ["-c", "--call", "--script-shell", "--prefix", "--userconfig", "--globalconfig", "--node-options"],
  },
  find: {
    deniedFlags: ["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"],
  },
};

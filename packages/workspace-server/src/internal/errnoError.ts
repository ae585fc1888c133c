import { WorkspaceToolError } from "../WorkspaceToolError.js";

/** The `code` of a Node.js system error (`ENOENT`, `ELOOP`…), or undefined. */
export function errnoCode(error: unknown): string | undefined {
  return error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : undefined;
}

/**
 * A file-system error of the operating system as a workspace refusal with a clear code, or undefined when
 * it is not one we can name (the caller reports those as `internal`).
 */
export function fromErrno(error: unknown, where?: string): WorkspaceToolError | undefined {
  const code = errnoCode(error);
  const at = where === undefined ? "" : ` (${JSON.stringify(where.length > 200 ? `${where.slice(0, 200)}…` : where)})`;
  const details = { errno: code, ...(where === undefined ? {} : { path: where }) };
  switch (code) {
    case "ENAMETOOLONG":
      return new WorkspaceToolError(
        "path_invalid",
        `a path or one of its names is longer than the system allows${at}`,
        details,
      );
    case "ELOOP":
      return new WorkspaceToolError("symlink_loop", `too many levels of symlinks${at}`, details);
    case "EACCES":
    case "EPERM":
      return new WorkspaceToolError("permission_denied", `permission denied${at}`, details);
    case "ENOENT":
      return new WorkspaceToolError("not_found", `no such file or folder${at}`, details);
    case "ENOTDIR":
      return new WorkspaceToolError("not_a_directory", `a part of the path is not a folder${at}`, details);
    case "EISDIR":
      return new WorkspaceToolError("not_a_file", `the path is a folder${at}`, details);
    case "EINVAL":
      return new WorkspaceToolError("path_invalid", `the path is not valid here${at}`, details);
    default:
      return undefined;
  }
}

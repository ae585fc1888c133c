import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join, resolve } from "node:path";

/** Whether a path is a file this process may execute. */
function executable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** A program's path: the project's own `node_modules/.bin`, then `PATH`; undefined when neither has it. */
export function findProgram(
  program: string,
  projectDir: string = process.cwd(),
  path: string = process.env.PATH ?? "",
): string | undefined {
  const local = join(resolve(projectDir), "node_modules", ".bin", program);
  if (executable(local)) return local;
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, program);
    if (executable(candidate)) return candidate;
  }
  return undefined;
}

// `@meshflow/core/startup`: what a command checks before it loads the rest of core (no zod), so a
// refusal that needs no server (a PRD another run holds, a file that is not there) is answered at once.

export {
  type ErrorCode,
  isMeshflowError,
  MeshflowError,
  toMeshflowError,
} from "./errors/MeshflowError.js";
export { type LockHolder, peekFileLock } from "./fs/FileLock.js";
export { userCacheDir } from "./fs/userCacheDir.js";

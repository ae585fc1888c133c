import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { MeshflowError } from "@meshflow/core";

/** The largest Markdown file `flow prd` reads: 1 MiB (a PRD of hundreds of stories is a tenth of it). */
const MAX_MARKDOWN_BYTES = 1_048_576;

/**
 * Reads a UTF-8 text file of at most `maxBytes`: `file_not_found` (exit 2) when it cannot be opened,
 * `prd_too_large` (exit 1) past the limit — checked on the open file before it is read, and again
 * while reading (a file that grows meanwhile is not read past the limit).
 */
export function readBoundedText(file: string, maxBytes = MAX_MARKDOWN_BYTES): string {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch (cause) {
    throw new MeshflowError(
      "file_not_found",
      `${file}: cannot read it (${(cause as NodeJS.ErrnoException).code ?? String(cause)})`,
      {
        cause,
        details: { file },
      },
    );
  }
  const tooLarge = () =>
    new MeshflowError(
      "prd_too_large",
      `${file}: larger than ${maxBytes} bytes, the most a Markdown PRD or notes file may have`,
      {
        details: { file, maxBytes },
      },
    );
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new MeshflowError("file_not_found", `${file}: not a file`, { details: { file } });
    if (stat.size > maxBytes) throw tooLarge();
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    for (;;) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
      if (length > maxBytes) throw tooLarge();
    }
    return buffer.subarray(0, length).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

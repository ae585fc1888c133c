/** The last lines a server wrote to stderr: enough to explain a failure, bounded in memory. */
export class StderrTail {
  private lines: string[] = [];
  private partial = "";

  constructor(private readonly maxLines = 20) {}

  /** Appends a chunk of stderr output. */
  push(chunk: string): void {
    const parts = (this.partial + chunk).split(/\r?\n/);
    this.partial = parts.pop() ?? "";
    if (this.partial.length > 2000) this.partial = this.partial.slice(-2000);
    for (const line of parts) if (line.trim()) this.lines.push(line.length > 500 ? `${line.slice(0, 500)}…` : line);
    if (this.lines.length > this.maxLines) this.lines.splice(0, this.lines.length - this.maxLines);
  }

  /** Forgets everything (a new process starts). */
  clear(): void {
    this.lines = [];
    this.partial = "";
  }

  /** The tail as text (newline-separated), empty when the server wrote nothing. */
  text(): string {
    const all = this.partial.trim() ? [...this.lines, this.partial] : this.lines;
    return all.slice(-this.maxLines).join("\n");
  }
}

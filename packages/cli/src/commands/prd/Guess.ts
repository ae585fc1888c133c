/** Something `flow prd convert` had to decide that the Markdown did not say: listed for the author to check. */
export interface Guess {
  /** The story it is about, when it is about one. */
  story?: string;
  /** The step it is about, when it is about one. */
  step?: number;
  /** The line of the Markdown it comes from, when there is one. */
  line?: number;
  message: string;
}

import type { ComponentChildren } from "preact";
import type { ApiError } from "./api.js";

/** A status word with its colour (never colour alone: the word is the information; `not started` is `s-not-started`). */
export function Status({ value }: { value: string }) {
  return <span class={`status s-${value.replace(/\s+/g, "-")}`}>{value}</span>;
}

/** The API's error, or a loading line. */
export function Loading({ error, what }: { error: ApiError | undefined; what: string }) {
  if (error)
    return (
      <p class="error" role="alert">
        {what}: {error.message} <code>{error.code}</code>
      </p>
    );
  return <p aria-busy="true">Loading {what}…</p>;
}

/** A section with a heading. */
export function Section({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section aria-label={title}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}

/**
 * A `<details>` opened or closed when first shown, then left to the user: live updates re-render
 * the tree, and a step that finishes must not fold away under the reader. `forceOpen` opens it
 * (an item chosen on the timeline).
 */
export function Disclosure({
  initiallyOpen,
  forceOpen,
  children,
  ...data
}: { initiallyOpen: boolean; forceOpen?: boolean; children: ComponentChildren } & Record<
  `data-${string}`,
  string | number
>) {
  return (
    <details
      {...data}
      ref={(el) => {
        if (el && !el.dataset.shown) {
          el.open = initiallyOpen;
          el.dataset.shown = "1";
        }
        // Opened from the timeline: the item asked for is shown whatever the reader folded before.
        if (el && forceOpen) el.open = true;
      }}
    >
      {children}
    </details>
  );
}

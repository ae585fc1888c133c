import type { PrdListing, ProjectPrd } from "../../../src/projectPrds.js";
import { plural } from "../api.js";

/** A byte count as people read it: whole MiB or KiB when it is one, else bytes. */
function bytesLabel(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return plural(bytes, "byte");
}

/**
 * What the bounds of the PRD search left out of the Start a run form (`GET /api/prds`'s `skipped`),
 * one line each, with the option of `flow console` that moves the bound where there is one; nothing
 * when the list is whole.
 */
export function PrdSearchNotes({ listing }: { listing: PrdListing }) {
  const { bounds, skipped, read } = listing;
  if (!listing.truncated) return null;
  const shown = skipped.tooLargePaths.join(", ");
  return (
    <ul class="muted prd-search-notes" aria-label="What the PRD search left out">
      {skipped.prds ? (
        <li data-skipped="prds">
          Only the first {plural(bounds.maxPrds, "PRD")} found are listed; there are more (
          <code>flow console --max-prds &lt;n&gt;</code> lists more).
        </li>
      ) : null}
      {skipped.unread ? (
        <li data-skipped="unread">
          The search stopped after looking at {plural(read, ".json file")}, its bound; the files after them were not
          looked at.
        </li>
      ) : null}
      {skipped.tooLarge ? (
        <li data-skipped="tooLarge">
          {plural(skipped.tooLarge, "file")} over {bytesLabel(bounds.maxBytes)} not read: {shown}
          {skipped.tooLarge > skipped.tooLargePaths.length ? ", …" : ""} (run such a PRD with <code>flow run</code> from
          a terminal).
        </li>
      ) : null}
      {skipped.deeperFolders ? (
        <li data-skipped="deeperFolders">
          {plural(skipped.deeperFolders, "folder")} at depth {bounds.depth}, the search's bound, not looked into (
          <code>flow console --prd-depth &lt;n&gt;</code> looks deeper).
        </li>
      ) : null}
    </ul>
  );
}

/** Says that the stories list holds only a PRD's first story ids (`maxIds`); choosing none still runs them all. */
export function StoryIdsNote({ prd, maxIds }: { prd: ProjectPrd; maxIds: number }) {
  if (prd.storyCount <= prd.stories.length || prd.stories.length < maxIds) return null;
  return (
    <p class="muted" data-skipped="storyIds">
      The first {prd.stories.length} of {prd.storyCount} story ids are listed; choosing none runs all of them.
    </p>
  );
}

import { describe, expect, it } from "vitest";
import { type GatheredTurn, TurnGatherer } from "./TurnGatherer.js";

const event = (id: string, text: string, finished = false) => ({
  type: "turn" as const,
  id,
  text,
  toolCalls: [],
  inputTokens: 10,
  outputTokens: 2,
  ...(finished ? { finished } : {}),
});

describe("TurnGatherer", () => {
  it("hands out each event's text as it arrives, with the turn's text so far, before the turn ends", () => {
    const said: string[] = [];
    const turns: GatheredTurn[] = [];
    const gatherer = new TurnGatherer(
      (turn) => turns.push(turn),
      (delta, text) => said.push(`${delta}|${text}`),
    );
    gatherer.add(event("m1", "Reading the spec. "));
    gatherer.add(event("m1", ""));
    gatherer.add(event("m1", "Writing the file."));
    expect(turns).toEqual([]);
    expect(said).toEqual([
      "Reading the spec. |Reading the spec. ",
      "Writing the file.|Reading the spec. Writing the file.",
    ]);
    gatherer.add(event("m2", "Done.", true));
    expect(said.at(-1)).toBe("Done.|Done.");
    expect(turns.map((t) => t.text)).toEqual(["Reading the spec. Writing the file.", "Done."]);
  });
});

import type { ParseError } from "jsonc-parser";
import { jsoncParser } from "./jsoncParser.js";

/** Where in a text a parse failed, 1-based. */
export interface TextPosition {
  line: number;
  column: number;
}

/** Outcome of parsing JSON text: the value, or where and why it is not JSON. */
export type JsonParseResult = { ok: true; value: unknown } | { ok: false; message: string; position: TextPosition };

const FRIENDLY: Record<string, string> = {
  InvalidSymbol: "unexpected character",
  InvalidNumberFormat: "invalid number",
  PropertyNameExpected: "expected a property name in double quotes",
  ValueExpected: "expected a value",
  ColonExpected: "expected ':'",
  CommaExpected: "expected ',' or a closing bracket",
  CloseBraceExpected: "expected '}'",
  CloseBracketExpected: "expected ']'",
  EndOfFileExpected: "unexpected content after the end of the JSON value",
  InvalidCommentToken: "comments are not allowed in JSON",
  UnexpectedEndOfComment: "unterminated comment",
  UnexpectedEndOfString: "unterminated string",
  UnexpectedEndOfNumber: "unterminated number",
  InvalidUnicode: "invalid unicode escape",
  InvalidEscapeCharacter: "invalid escape character",
  InvalidCharacter: "invalid character in string",
};

/** Converts a 0-based character offset into a 1-based line and column. */
export function positionAt(text: string, offset: number): TextPosition {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * Parses strict JSON. The fast path is `JSON.parse`; only on failure is the text re-scanned to
 * say where the first problem is, by line and column.
 */
export function parseJsonText(text: string): JsonParseResult {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    const errors: ParseError[] = [];
    const { parse: parseJsonc, printParseErrorCode } = jsoncParser();
    try {
      parseJsonc(text, errors, { allowTrailingComma: false, disallowComments: true, allowEmptyContent: false });
    } catch {
      // jsonc-parser recurses: text nested thousands deep overflows it. V8's own message says where.
      errors.length = 0;
    }
    const first = errors[0];
    if (first) {
      const code = printParseErrorCode(first.error);
      return { ok: false, message: FRIENDLY[code] ?? code, position: positionAt(text, first.offset) };
    }
    // jsonc-parser accepts a few things JSON.parse does not (e.g. lone surrogates); fall back to V8's words.
    const message = error instanceof Error ? error.message : String(error);
    const at = /position (\d+)/.exec(message);
    return { ok: false, message, position: positionAt(text, at ? Number(at[1]) : 0) };
  }
}

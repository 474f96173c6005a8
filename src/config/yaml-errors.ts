/**
 * A YAML syntax error, moved to the line that is wrong. The yaml parser reports where it noticed
 * the problem, which is often later: an unclosed quote at the end of the file, an unclosed `{`
 * or `[` on the next line, an over-indented line on the line above it. Only the first error is
 * kept: the ones after it are mostly the same mistake seen again.
 */
import { Lexer, type YAMLError } from 'yaml';

export interface SyntaxIssue {
  /** Offset in the text where the mistake is. */
  offset: number;
  message: string;
}

/** Lexer tokens that mark structure but take no characters of the source. */
const CONTROL = new Set(['\x02', '\x18', '\x1f']);

interface Token {
  text: string;
  offset: number;
}

function tokens(text: string): Token[] {
  const out: Token[] = [];
  let offset = 0;
  for (const t of new Lexer().lex(text)) {
    if (CONTROL.has(t)) continue;
    out.push({ text: t, offset });
    offset += t.length;
  }
  return out;
}

/** The quoted scalar that runs up to `offset` without its closing quote. */
function unclosedQuote(text: string, offset: number): Token | undefined {
  return tokens(text)
    .filter((t) => (t.text[0] === '"' || t.text[0] === "'") && t.offset < offset)
    .at(-1);
}

/** The innermost `{` (or `[`) still open at `offset`. */
function unclosedFlow(text: string, offset: number, opener: '{' | '['): Token | undefined {
  const stack: Token[] = [];
  for (const t of tokens(text)) {
    if (t.offset >= offset) break;
    if (t.text === '{' || t.text === '[') stack.push(t);
    else if ((t.text === '}' && stack.at(-1)?.text === '{') || (t.text === ']' && stack.at(-1)?.text === '['))
      stack.pop();
  }
  return stack.reverse().find((t) => t.text === opener);
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

/** The next line after the one holding `offset` that is neither blank nor a comment. */
function nextContentLine(text: string, offset: number): { start: number; line: string } | undefined {
  let start = text.indexOf('\n', offset);
  while (start !== -1) {
    start += 1;
    const end = text.indexOf('\n', start);
    const line = text.slice(start, end === -1 ? undefined : end);
    if (line.trim() !== '' && !line.trimStart().startsWith('#')) return { start, line };
    start = end;
  }
  return undefined;
}

/** Undefined when the parser found nothing wrong. */
export function yamlSyntaxIssue(text: string, errors: readonly YAMLError[]): SyntaxIssue | undefined {
  const e = errors[0];
  if (!e) return undefined;
  const at = e.pos[0];
  const plain = { offset: at, message: `YAML syntax error: ${e.message}` };

  if (e.code === 'MISSING_CHAR' && /closing ["']quote/.test(e.message)) {
    const q = unclosedQuote(text, at);
    if (q)
      return { offset: q.offset, message: `YAML syntax error: the ${q.text[0]} quote opened here is never closed` };
  }

  // "Flow map … must be sufficiently indented and end with a }": noticed on the next block line.
  const flow = /^Flow (map|sequence) .*end with an? ([}\]])/.exec(e.message);
  if (flow && text[at] !== '}' && text[at] !== ']') {
    const close = flow[2] as '}' | ']';
    const open = unclosedFlow(text, at, close === '}' ? '{' : '[');
    if (open && lineStart(text, open.offset) < lineStart(text, at)) {
      return {
        offset: open.offset,
        message: `YAML syntax error: the "${open.text}" opened here is never closed with "${close}"`,
      };
    }
  }

  // A line indented deeper than the `key: value` line above it: the parser blames the value.
  // The lines are named by number, never quoted (a literal key may be on them).
  if (e.code === 'BLOCK_AS_IMPLICIT_KEY' || e.code === 'MULTILINE_IMPLICIT_KEY') {
    const start = lineStart(text, at);
    const end = text.indexOf('\n', start);
    const above = text.slice(start, end === -1 ? undefined : end);
    const next = nextContentLine(text, at);
    if (next && indentOf(next.line) > indentOf(above)) {
      const aboveNumber = text.slice(0, start).split('\n').length;
      return {
        offset: next.start + indentOf(next.line),
        message:
          `YAML syntax error: this line is indented deeper than line ${aboveNumber}, which already has a value: ` +
          'indent it like the keys next to it',
      };
    }
  }
  // "All mapping items must start at the same column": reported at the start of the line, or of
  // a blank or comment line before it; the key that is off is the next thing written.
  if (e.code === 'BAD_INDENT' && at === lineStart(text, at)) {
    const end = text.indexOf('\n', at);
    const line = text.slice(at, end === -1 ? undefined : end);
    const target =
      line.trim() === '' || line.trimStart().startsWith('#') ? nextContentLine(text, at) : { start: at, line };
    if (target) return { ...plain, offset: target.start + indentOf(target.line) };
  }
  return plain;
}

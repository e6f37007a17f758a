/**
 * Text a server chose (messages, titles, descriptions, option labels, defaults, notices), made safe to
 * draw on a terminal. A raw ESC lets a server clear the screen, move the cursor over parley's own box
 * ("*server* is asking"), recolour, set the window title or write the clipboard (OSC 52); a lone CR
 * overwrites a line; bidirectional overrides reorder what the person reads (`gnp.exe` shown for
 * `exe.png`). Each such character is shown instead of obeyed: C0 controls and DEL as their Unicode
 * control pictures (ESC → `␛`, CR → `␍`), C1 controls and the bidirectional controls (U+061C,
 * U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) as `\u{…}`. A tab is a space. One regular-expression
 * pass per string: linear in its length (the broker caps every string a server sends, see
 * `DEFAULT_LIMITS`).
 * @module
 */

const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_LINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

function shown(c: string): string {
  const code = c.codePointAt(0)!;
  if (code === 0x09) return ' ';
  if (code < 0x20) return String.fromCodePoint(0x2400 + code);
  if (code === 0x7f) return '\u2421';
  return `\\u{${code.toString(16)}}`;
}

/**
 * `text` with every control and bidirectional-control character shown instead of obeyed. With
 * `lines: true` a line feed (and a CR directly before it) stays a line break; otherwise line breaks
 * become a space (a label is one line).
 */
export function termText(text: string, o: { lines?: boolean } = {}): string {
  if (o.lines) return text.replace(/\r\n/g, '\n').replace(UNSAFE, shown);
  return text.replace(/\r?\n/g, ' ').replace(UNSAFE_LINE, shown);
}

/**
 * Text folding for the heuristics that read what a server wrote (sensitive-field detection): one
 * canonical form, in linear time, so that look-alike letters, invisible characters and case tricks
 * cannot hide a word.
 *
 * - NFKC (full-width and mathematical letters, half-width katakana, ligatures become plain letters);
 * - default-ignorable code points removed (soft hyphen U+00AD, zero-width space/joiners U+200B–U+200D,
 *   word joiner U+2060, BOM U+FEFF, variation selectors, bidi controls, tag characters, …);
 * - for the Latin pass: Cyrillic, Greek and Armenian letters that look like Latin ones mapped to them
 *   (a Cyrillic а in "Pаssword"), then accents removed (NFD, marks dropped: "contraseña" → "contrasena");
 * - words split at separators, at lower→upper case changes (`apiKey`), before the last capital of a
 *   capital run followed by a lower-case letter (`APIKey` → `API Key`) and between a letter and a digit
 *   that follows it (`cvv2` → `cvv 2`), but not between a digit and the letters after it (`2FA` stays
 *   one word).
 *
 * Every function here makes one pass over its input (no backtracking regular expression runs on
 * untrusted text), so time is linear in the input's length.
 * @module
 */

/** Lower-case look-alikes of Latin letters in Cyrillic, Greek and Armenian (the common spoofs). */
const CONFUSABLE_LOWER: Record<string, string> = {
  // Cyrillic
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  һ: 'h',
  і: 'i',
  ї: 'i',
  ј: 'j',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  ѕ: 's',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  ɡ: 'g',
  ү: 'y',
  ӏ: 'l',
  ʏ: 'y',
  // Greek
  α: 'a',
  β: 'b',
  ε: 'e',
  η: 'n',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  ω: 'w',
  ς: 's',
  // Armenian
  օ: 'o',
  ս: 'u',
  ց: 'g',
  հ: 'h',
  ո: 'n',
  զ: 'q',
};
/** Capital look-alikes. */
const CONFUSABLE_UPPER: Record<string, string> = {
  А: 'A',
  В: 'B',
  Е: 'E',
  Ё: 'E',
  К: 'K',
  М: 'M',
  Н: 'H',
  О: 'O',
  Р: 'P',
  С: 'C',
  Т: 'T',
  У: 'Y',
  Х: 'X',
  І: 'I',
  Ї: 'I',
  Ј: 'J',
  Ѕ: 'S',
  Ԛ: 'Q',
  Ԝ: 'W',
  Һ: 'H',
  Ү: 'Y',
  Ӏ: 'I',
  Α: 'A',
  Β: 'B',
  Ε: 'E',
  Ζ: 'Z',
  Η: 'H',
  Ι: 'I',
  Κ: 'K',
  Μ: 'M',
  Ν: 'N',
  Ο: 'O',
  Ρ: 'P',
  Τ: 'T',
  Υ: 'Y',
  Χ: 'X',
  Օ: 'O',
  Ս: 'U',
};

const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
const MARK = /\p{M}/gu;

/** NFKC with default-ignorable code points removed (soft hyphens, zero-width characters, bidi controls, …). */
export function canonical(text: string): string {
  return text.normalize('NFKC').replace(IGNORABLE, '');
}

/** Maps Cyrillic, Greek and Armenian look-alikes to Latin letters (case kept) and drops accents. */
export function toLatin(text: string): string {
  let out = '';
  for (const ch of text) out += CONFUSABLE_LOWER[ch] ?? CONFUSABLE_UPPER[ch] ?? ch;
  return out.normalize('NFD').replace(MARK, '').normalize('NFC');
}

const LETTER = /\p{L}/u;
const DIGIT = /\p{Nd}/u;
const MARK_ONE = /\p{M}/u;

type Kind = 'upper' | 'lower' | 'caseless' | 'digit' | 'mark' | 'sep';

function kindOf(ch: string): Kind {
  if (ch >= 'a' && ch <= 'z') return 'lower';
  if (ch >= 'A' && ch <= 'Z') return 'upper';
  if (ch >= '0' && ch <= '9') return 'digit';
  if (ch < '\u0080') return 'sep';
  if (LETTER.test(ch)) {
    if (ch !== ch.toLowerCase()) return 'upper';
    if (ch !== ch.toUpperCase()) return 'lower';
    return 'caseless';
  }
  if (DIGIT.test(ch)) return 'digit';
  if (MARK_ONE.test(ch)) return 'mark';
  return 'sep';
}

/**
 * Lower-case words of `text` (see the module comment for where words split). One pass; `text` should
 * already be {@link canonical}.
 */
export function words(text: string): string[] {
  const chars = Array.from(text);
  const kinds = chars.map(kindOf);
  const out: string[] = [];
  let cur = '';
  const flush = () => {
    if (cur) out.push(cur.toLowerCase());
    cur = '';
  };
  for (let i = 0; i < chars.length; i++) {
    const k = kinds[i];
    if (k === 'sep') {
      flush();
      continue;
    }
    const prev = i > 0 ? kinds[i - 1] : 'sep';
    if (cur) {
      const lowerToUpper = (prev === 'lower' || prev === 'caseless') && k === 'upper';
      const capitalRunEnds = prev === 'upper' && k === 'upper' && i + 1 < chars.length && kinds[i + 1] === 'lower';
      const letterToDigit = (prev === 'lower' || prev === 'upper' || prev === 'caseless') && k === 'digit';
      if (lowerToUpper || capitalRunEnds || letterToDigit) flush();
    }
    cur += chars[i];
  }
  flush();
  return out;
}

/** The two forms the detectors read. */
export interface Folded {
  /** Words of the Latin-folded text (look-alikes mapped, accents dropped), lower case. */
  latin: string[];
  /** Words of the canonical text in its own script (Cyrillic stays Cyrillic), lower case. */
  native: string[];
  /** The canonical text in lower case, whitespace runs as one space (for scripts without spaces: CJK). */
  nativeText: string;
}

/** Folds one text for the detectors. Linear in `text.length`. */
export function fold(text: string): Folded {
  const c = canonical(text);
  const nativeText = c.toLowerCase().replace(/\s+/gu, ' ');
  return { latin: words(toLatin(c)), native: words(c), nativeText };
}

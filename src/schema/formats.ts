/**
 * The four string formats of the subset, checked strictly, shared by validation and by lint (so a
 * default that breaks its own format is caught before a host prefills it).
 * Spec: schema.ts StringSchema `format?: "email" | "uri" | "date" | "date-time"`; RFC 3339 §5.6 for
 * date and date-time (a `T`, seconds, and a `Z` or `±HH:MM` offset are required).
 * @module
 */
import { fullFormats } from 'ajv-formats/dist/formats.js';

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const leap = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);

/** `YYYY-MM-DD`, a real calendar date. */
export function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return mo >= 1 && mo <= 12 && d >= 1 && d <= (mo === 2 && leap(y) ? 29 : DAYS[mo - 1]);
}

/** RFC 3339 date-time: `T`, seconds, optional fraction, and `Z` or `±HH:MM`; a leap second only at 23:59:60 UTC. */
export function isDateTime(s: string): boolean {
  const m = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/.exec(s);
  if (!m || !isDate(m[1])) return false;
  const [h, mi, sec] = [Number(m[2]), Number(m[3]), Number(m[4])];
  const [oh, om] = m[5] ? [0, 0] : [Number(m[7]), Number(m[8])];
  if (h > 23 || mi > 59 || sec > 60 || oh > 23 || om > 59) return false;
  if (sec === 60) {
    const sign = m[6] === '-' ? -1 : 1;
    const utcMinutes = (((h * 60 + mi - sign * (oh * 60 + om)) % 1440) + 1440) % 1440;
    return utcMinutes === 23 * 60 + 59;
  }
  return true;
}

/**
 * How a person writes each date format: one text for the console's hint, the terminal's label and the
 * validation message, so all three name the same format. ISO 8601 / RFC 3339 §5.6; `date-time` needs a
 * time zone (`Z` or `±HH:MM`).
 */
export const FORMAT_HINTS: Readonly<Record<'date' | 'date-time', string>> = {
  date: 'YYYY-MM-DD (ISO 8601), e.g. 2025-01-31',
  'date-time': 'YYYY-MM-DDTHH:MM:SSZ or with an offset such as +08:00 (ISO 8601), e.g. 2025-01-31T09:00:00Z',
};

/** The hint for `format` (`date`, `date-time`), else `undefined`. */
export function formatHint(format: unknown): string | undefined {
  return format === 'date' || format === 'date-time' ? FORMAT_HINTS[format] : undefined;
}

const emailRe = fullFormats.email as RegExp;
const uriFn = fullFormats.uri as (s: string) => boolean;

/** Strict checker per format name; `undefined` for names outside the subset. */
export const FORMAT_CHECKS: Record<'email' | 'uri' | 'date' | 'date-time', (s: string) => boolean> = {
  email: (s) => emailRe.test(s),
  uri: (s) => uriFn(s),
  date: isDate,
  'date-time': isDateTime,
};

/** Length in Unicode code points, as JSON Schema counts `minLength`/`maxLength`. */
export function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

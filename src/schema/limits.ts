/**
 * Size caps on what a server may send in one input request, checked before any other text check, so
 * every check after them runs on bounded input. Over a cap the host refuses the request (JSON-RPC
 * -32602) and says which part and which cap. Characters are UTF-16 code units (`string.length`);
 * bytes are UTF-8.
 *
 * | Cap | Default | Applies to |
 * |---|---|---|
 * | `requestBytes` | 262 144 (256 KiB) | the parts parley reads: `message` + `url` + the `requestedSchema` as JSON text |
 * | `messageChars` | 8 192 | `message` |
 * | `urlChars` | 8 192 | URL-mode `url` |
 * | `elicitationIdChars` | 256 | URL-mode `elicitationId` (2025-11-25) |
 * | `nameChars` | 256 | each property name |
 * | `titleChars` | 512 | the schema's and each property's `title`, each option's `title`/`const`, each `enum`/`enumNames` entry |
 * | `descriptionChars` | 4 096 | the schema's and each property's `description`; a string `default` |
 * | `enumOptions` | 1 000 | options of one enum (`enum`, `oneOf`, `anyOf`, `items.enum`, `items.anyOf`) |
 * | `properties` | 100 | properties of one form |
 *
 * Time is linear in the size of the request; nothing here allocates per character.
 * @module
 */
import type { IssueCode } from './codes.js';
import { pointer } from './pointer.js';
import { isObj } from './safe.js';
import type { Issue } from './types.js';

export interface RequestLimits {
  requestBytes: number;
  messageChars: number;
  urlChars: number;
  elicitationIdChars: number;
  nameChars: number;
  titleChars: number;
  descriptionChars: number;
  enumOptions: number;
  properties: number;
}

/** The default caps (see the module comment). */
export const DEFAULT_LIMITS: Readonly<RequestLimits> = Object.freeze({
  requestBytes: 262_144,
  messageChars: 8_192,
  urlChars: 8_192,
  elicitationIdChars: 256,
  nameChars: 256,
  titleChars: 512,
  descriptionChars: 4_096,
  enumOptions: 1_000,
  properties: 100,
});

/** UTF-8 length of `s` in bytes, without encoding it. */
export function utf8Bytes(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** A pointer token short enough to show: a name over the cap is cut, with its length. */
function token(name: string, max: number): string {
  return name.length <= max ? name : `${name.slice(0, 32)}…(${name.length} characters)`;
}

function over(
  out: Issue<IssueCode>[],
  path: string,
  what: string,
  size: number,
  unit: string,
  cap: number,
  key: keyof RequestLimits,
  fix: string,
): void {
  out.push({
    code: 'too-large',
    path,
    severity: 'error',
    message: `${what} has ${size} ${unit}, over the cap of ${cap} (limits.${key})`,
    fix,
  });
}

/**
 * Cap findings of a `requestedSchema` (pointers relative to it). Walks the root and each property
 * once; stops listing after the first 20 findings.
 */
export function checkSchemaLimits(schema: unknown, limits: Readonly<RequestLimits> = DEFAULT_LIMITS): Issue<IssueCode>[] {
  const out: Issue<IssueCode>[] = [];
  if (!isObj(schema)) return out;
  let text: string | undefined;
  try {
    text = JSON.stringify(schema);
  } catch {
    text = undefined;
  }
  if (text !== undefined) {
    const bytes = utf8Bytes(text);
    if (bytes > limits.requestBytes)
      over(out, '', 'requestedSchema', bytes, 'bytes', limits.requestBytes, 'requestBytes', 'send a smaller form');
  }
  const text1 = (v: unknown, path: string, what: string, cap: number, key: keyof RequestLimits) => {
    if (typeof v === 'string' && v.length > cap)
      over(out, path, what, v.length, 'characters', cap, key, `shorten the ${what.split(' ').pop()}`);
  };
  text1(schema.title, '/title', 'the form title', limits.titleChars, 'titleChars');
  text1(schema.description, '/description', 'the form description', limits.descriptionChars, 'descriptionChars');
  const props = schema.properties;
  if (!isObj(props)) return out;
  let count = 0;
  for (const name in props) {
    if (!Object.prototype.hasOwnProperty.call(props, name)) continue;
    if (++count > limits.properties) {
      over(
        out,
        '/properties',
        'the form',
        Object.keys(props).length,
        'properties',
        limits.properties,
        'properties',
        'ask for fewer fields, or split the form',
      );
      break;
    }
    const path = pointer('properties', token(name, limits.nameChars));
    if (name.length > limits.nameChars)
      over(out, path, 'a property name', name.length, 'characters', limits.nameChars, 'nameChars', 'use a shorter field name');
    const p = props[name];
    if (!isObj(p)) continue;
    text1(p.title, `${path}/title`, 'a property title', limits.titleChars, 'titleChars');
    text1(p.description, `${path}/description`, 'a property description', limits.descriptionChars, 'descriptionChars');
    text1(p.default, `${path}/default`, 'a default', limits.descriptionChars, 'descriptionChars');
    const items = isObj(p.items) ? p.items : undefined;
    for (const [list, at] of [
      [p.enum, 'enum'],
      [p.enumNames, 'enumNames'],
      [p.oneOf, 'oneOf'],
      [p.anyOf, 'anyOf'],
      [items?.enum, 'items/enum'],
      [items?.anyOf, 'items/anyOf'],
      [items?.oneOf, 'items/oneOf'],
    ] as const) {
      if (!Array.isArray(list)) continue;
      if (list.length > limits.enumOptions)
        over(out, `${path}/${at}`, 'an option list', list.length, 'options', limits.enumOptions, 'enumOptions', 'offer fewer options');
      for (let i = 0; i < list.length && i < limits.enumOptions; i++) {
        const o: unknown = list[i];
        if (typeof o === 'string') text1(o, `${path}/${at}/${i}`, 'an option', limits.titleChars, 'titleChars');
        else if (isObj(o)) {
          text1(o.title, `${path}/${at}/${i}/title`, 'an option title', limits.titleChars, 'titleChars');
          text1(o.const, `${path}/${at}/${i}/const`, 'an option value', limits.titleChars, 'titleChars');
        }
      }
    }
    if (out.length >= 20) break;
  }
  return out;
}

/**
 * Cap findings of the text fields of `elicitation/create` params other than the schema: `message`,
 * `url` and `elicitationId` (pointers relative to the params). Constant time.
 */
export function checkMessageLimits(
  params: { message?: unknown; url?: unknown; elicitationId?: unknown },
  limits: Readonly<RequestLimits> = DEFAULT_LIMITS,
): Issue<IssueCode>[] {
  const out: Issue<IssueCode>[] = [];
  if (typeof params.message === 'string' && params.message.length > limits.messageChars)
    over(
      out,
      '/message',
      'the message',
      params.message.length,
      'characters',
      limits.messageChars,
      'messageChars',
      'send a shorter message',
    );
  if (typeof params.url === 'string' && params.url.length > limits.urlChars)
    over(out, '/url', 'the URL', params.url.length, 'characters', limits.urlChars, 'urlChars', 'send a shorter URL');
  if (typeof params.elicitationId === 'string' && params.elicitationId.length > limits.elicitationIdChars)
    over(
      out,
      '/elicitationId',
      'the elicitationId',
      params.elicitationId.length,
      'characters',
      limits.elicitationIdChars,
      'elicitationIdChars',
      'send a shorter id (a UUID is 36 characters)',
    );
  return out;
}

/** At most `max` characters of `text` for logs and audit rows: the start, then `…(N characters)`. */
export function excerpt(text: string, max = 256): string {
  return text.length <= max ? text : `${text.slice(0, max)}…(${text.length} characters)`;
}

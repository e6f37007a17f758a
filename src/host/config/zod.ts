/**
 * The configuration's shape as zod schemas, and the one adapter from zod's findings to
 * {@link ConfigIssue}s.
 *
 * A schema states each field's rule; its `error` option says what parley reports when the rule fails:
 * {@link expect} for a wrong type ("expected a string, got number", code `type`), {@link rule} for a rule
 * with its own code, message and fix. Transforms and refinements report through {@link flag}.
 *
 * {@link parseSection} parses one section and keeps what is valid: an error leaves out the smallest
 * *unit* that holds it (a server, a route, one policy key: the caller lists its units), a warning repairs
 * the value (an unknown key is deleted, a number `env` value becomes a string, a long deadline is
 * clamped), and the section is parsed again, at most {@link MAX_PASSES} times. Each pass is linear in
 * the section's size; the value is copied before the first change, never changed in place.
 * @module
 */
import { z } from 'zod';
import type { ConfigIssueCode } from './issues.js';
import { pointer } from './issues.js';
import type { Reader } from './reader.js';
import { isObject, report, typeName } from './reader.js';
import type { InterpolationContext } from './interpolate.js';
import { expand } from './interpolate.js';
import type { Segments } from './source.js';

/** What a finding reports. Carried in zod's message (encoded), so one channel serves every schema. */
export interface Say {
  code: ConfigIssueCode;
  /** For code `type`: the expected shape; the message becomes "expected <what>, got <JSON type>". */
  what?: string;
  message?: string;
  fix?: string;
  warning?: boolean;
  /** Point at the property name instead of the value. */
  key?: boolean;
  /** A warning's repair: the value used instead (the next pass reads it). */
  repair?: string | number;
}

type Path = ReadonlyArray<PropertyKey>;
type Text = string | ((path: Path) => string);

const MARK = '\u0000parley:';
const enc = (s: Say): string => MARK + JSON.stringify(s);
const dec = (m: string): Say | undefined => (m.startsWith(MARK) ? (JSON.parse(m.slice(MARK.length)) as Say) : undefined);

/** `error` option: any failure of the schema (and of its checks) reads "expected <what>, got <type>". */
export const expect = (what: string) => ({ error: () => enc({ code: 'type', what }) });

/** `error` option for a rule with its own code; message and fix may depend on the finding's path. */
export const rule = (code: ConfigIssueCode, message: Text, fix?: Text) => ({
  error: (iss: { path?: Path }) => {
    const path = iss.path ?? [];
    return enc({ code, message: typeof message === 'string' ? message : message(path), fix: typeof fix === 'function' ? fix(path) : fix });
  },
});

/** Reports a finding from a transform, refinement or preprocess, at `path` below the value. */
export function flag(ctx: z.core.$RefinementCtx, say: Say, path: PropertyKey[] = []): void {
  ctx.addIssue({ code: 'custom', message: enc(say), path, input: undefined });
}

/** A strict object: unknown keys are warnings naming the known ones (and deleted); not an object: `type`. */
export function obj<S extends z.core.$ZodLooseShape>(what: string, shape: S) {
  const known = `known keys here: ${Object.keys(shape).join(', ')}`;
  return z.strictObject(shape, {
    error: (iss) => enc(iss.code === 'unrecognized_keys' ? { code: 'unknown-key', fix: known } : { code: 'type', what }),
  });
}

/** An array whose items are units: a bad item is left out and the rest kept (holes are filtered out). */
export function list<T extends z.ZodType>(item: T, what: string) {
  return z.array(item.optional(), expect(what)).transform((a) => a.filter((x): x is z.output<T> & {} => x !== undefined));
}

/**
 * A record of name → `value`. `"__proto__"` is refused as a name (assigning it would change an object's
 * prototype); `check` may refuse other names. A refused name is reported at the name.
 */
export function named<T extends z.ZodType>(value: T, what: string, name: string, check?: (k: string) => Say | undefined) {
  return z.preprocess(
    (v, ctx) => {
      if (!isObject(v)) return v;
      for (const k of Object.keys(v)) {
        const bad =
          k === '__proto__'
            ? { code: 'invalid-value' as const, message: `"__proto__" cannot be used as ${name}`, fix: 'choose another name', key: true }
            : check?.(k);
        if (bad) flag(ctx, bad, [k]);
      }
      return v;
    },
    z.record(z.string(), value, expect(what)),
  );
}

/**
 * The interpolation context of the section being parsed. Schemas are built once per process (zod compiles
 * a schema on first use), so text fields read the document's context from here; parsing is synchronous
 * and {@link parseSection} sets it for its duration.
 */
let current: InterpolationContext | undefined;

/** The interpolation context of the document being parsed (inside a schema's transforms only). */
export function interpolation(): InterpolationContext {
  if (!current) throw new Error('interpolation() outside parseSection');
  return current;
}

/**
 * A string field with `${…}` expansion (see interpolate.ts); `tilde` also expands a leading `~`.
 * `noInputs` is reported when the string holds `${input:…}` (fields read before any person is asked);
 * `missing` when a required field is absent.
 */
export function text(opts: { tilde?: boolean; noInputs?: Say; missing?: Say } = {}) {
  const { missing } = opts;
  const error = (iss: { input?: unknown }) => enc(iss.input === undefined && missing ? missing : { code: 'type', what: 'a string' });
  return z.string({ error }).transform((s, ctx) => {
    const e = expand(s, interpolation(), opts);
    if (!e.ok) for (const p of e.problems) flag(ctx, { code: p.code, message: p.message, fix: p.fix });
    else if (opts.noInputs && e.inputRefs.length) flag(ctx, opts.noInputs);
    return e.ok ? e.value : s;
  });
}

/** Longest delay a timer takes, ms (2^31−1, ~24.8 days): a longer one would fire after 1 ms. */
export const MAX_DEADLINE_MS = 2 ** 31 - 1;

/** A deadline in ms: over {@link MAX_DEADLINE_MS} it is clamped to it, with a warning naming the field. */
export function clampMs<T extends z.ZodType<number>>(ms: T) {
  return ms.transform((n, ctx) => {
    if (n > MAX_DEADLINE_MS)
      flag(ctx, {
        code: 'clamped',
        warning: true,
        repair: MAX_DEADLINE_MS,
        message: `${n} ms is longer than the longest timer; using ${MAX_DEADLINE_MS} ms (~24.8 days)`,
        fix: `set at most ${MAX_DEADLINE_MS}`,
      });
    return Math.min(n, MAX_DEADLINE_MS);
  });
}

/** Most parses of one section; each pass removes or repairs what the previous one reported. */
export const MAX_PASSES = 8;

/**
 * Parses `value` (found at `at`) with `schema`, reporting every finding to `r` with its pointer.
 * `units` are path patterns below `at` (`'*'` matches any key or index, e.g. `['*', '*\/roots/*']`):
 * an error leaves out the value at its longest matching unit, or the whole section when none matches
 * (then the result is `undefined`). `server` names the server the findings belong to.
 */
export function parseSection<T extends z.ZodType>(
  r: Reader,
  schema: T,
  value: unknown,
  at: Segments,
  units: readonly string[] = [],
  server?: string,
): z.output<T> | undefined {
  const patterns = units.map((u) => u.split('/'));
  const box: { v: unknown } = { v: value };
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const outer = current;
    current = r.interp;
    let res: z.ZodSafeParseResult<z.output<T>>;
    try {
      res = schema.safeParse(box.v, { reportInput: true });
    } finally {
      current = outer;
    }
    if (res.success) return res.data;
    if (pass === 0) box.v = structuredClone(box.v);
    let changed = false;
    for (const iss of res.error.issues)
      adapt(iss, [], (s, path, input) => {
        const segs = [...at, ...path] as Segments;
        const message = s.code === 'type' ? `expected ${s.what}, got ${typeName(input)}` : (s.message ?? 'invalid value');
        const fix = s.code === 'type' ? `make ${pointer(segs) || 'the document'} ${s.what}` : s.fix;
        report(r, s.code, segs, message, { severity: s.warning ? 'warning' : 'error', fix, key: s.key, server });
        if (!s.warning) changed = edit(box, unit(path, patterns), DROP) || changed;
        else if (s.code === 'unknown-key' || s.repair !== undefined) changed = edit(box, path, s.repair ?? DROP) || changed;
      });
    // Nothing left, or nothing changed (the same findings would come again): the section is left out.
    if (box.v === undefined || !changed) return undefined;
  }
  return undefined;
}

/** One zod finding as parley findings, passed to `found` (an unknown-keys finding becomes one per key). */
function adapt(iss: z.core.$ZodIssue, base: Path, found: (say: Say, path: PropertyKey[], input: unknown) => void): void {
  const path = [...base, ...iss.path];
  if (iss.code === 'invalid_union') {
    // Alternatives by JSON type (a root is a string or an object): report the one the value's type chose.
    const chosen = iss.errors.filter((e) => !(e.length === 1 && e[0].code === 'invalid_type' && e[0].path.length === 0));
    if (chosen.length === 1) return void chosen[0].forEach((e) => adapt(e, path, found));
  }
  const say = dec(iss.message) ?? { code: iss.code === 'invalid_value' ? 'invalid-value' : 'type', what: 'a valid value' };
  if (iss.code !== 'unrecognized_keys') return found(say, path, iss.input);
  for (const k of iss.keys) found({ ...say, message: `unknown key "${k}" is ignored`, warning: true, key: true }, [...path, k], undefined);
}

const DROP = Symbol('drop');

/** The prefix of `path` that is its longest matching unit; `[]` (the whole section) when none matches. */
function unit(path: PropertyKey[], patterns: string[][]): PropertyKey[] {
  let best = 0;
  for (const p of patterns)
    if (p.length > best && p.length <= path.length && p.every((seg, i) => seg === '*' || seg === String(path[i]))) best = p.length;
  return path.slice(0, best);
}

/** Deletes (`DROP`) or replaces the value at `path` inside `box.v`; false when that path no longer exists. */
function edit(box: { v: unknown }, path: PropertyKey[], to: typeof DROP | string | number): boolean {
  if (path.length === 0) {
    box.v = to === DROP ? undefined : to;
    return true;
  }
  const own = (o: unknown, k: PropertyKey): o is Record<PropertyKey, unknown> => typeof o === 'object' && o !== null && Object.hasOwn(o, k);
  let o: unknown = box.v;
  for (const seg of path.slice(0, -1)) o = own(o, seg) ? o[seg] : undefined;
  const last = path[path.length - 1];
  if (!own(o, last)) return false;
  if (to === DROP) delete o[last];
  else Object.defineProperty(o, last, { value: to, enumerable: true, writable: true, configurable: true });
  return true;
}

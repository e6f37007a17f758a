/**
 * How the gateway names what it aggregates (docs/gateway.md §Names).
 *
 * - Tools and prompts: `<server>__<name>` when both parts are made of `[A-Za-z0-9_-]` and the result
 *   has at most 64 characters (the common client limit `^[A-Za-z0-9_-]{1,64}$`). Otherwise other
 *   characters become `_`, the server part (then the tool part) is cut to fit, and it ends in `_<6 hex>` (a SHA-256 prefix of
 *   `<server>/<name>`). A name therefore never depends on the other servers' tools and stays the same
 *   across restarts; the one exception is two plain names that meet (`a__b` + `c` and `a` + `b__c`):
 *   the second in `server/name` order gets the suffix.
 * - Resource URIs stay as they are when one server offers them; a URI that several servers offer is
 *   exposed as `parley://<server>/<encodeURIComponent(uri)>` for each of them.
 * @module
 */
import { createHash } from 'node:crypto';

/** Separator between server and tool/prompt name. */
export const SEPARATOR = '__';
/** Longest exposed name, characters. */
export const MAX_NAME = 64;

const clean = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '_');
const short = (server: string, name: string) => createHash('sha256').update(`${server}/${name}`).digest('hex').slice(0, 6);

/** One exposed name and what it stands for. */
export interface Named {
  exposed: string;
  server: string;
  name: string;
}

/**
 * Exposed names for `(server, name)` pairs (each returned with its own fields), deterministic for a given set: pairs are processed in
 * order of `server/name`, so the same servers and tools always give the same names.
 */
export function namespace<T extends { server: string; name: string }>(pairs: T[]): Array<T & Named> {
  const sorted = [...pairs].sort((a, b) => (`${a.server}/${a.name}` < `${b.server}/${b.name}` ? -1 : 1));
  const taken = new Map<string, string>();
  const out: Array<T & Named> = [];
  for (const p of sorted) {
    const id = `${p.server}/${p.name}`;
    let exposed = `${p.server}${SEPARATOR}${p.name}`;
    const plain = /^[A-Za-z0-9_-]+$/.test(p.server) && /^[A-Za-z0-9_-]+$/.test(p.name) && exposed.length <= MAX_NAME;
    if (!plain || taken.has(exposed)) {
      // Cut the server part first (to no less than 8 characters) so the tool part stays readable.
      const tool = clean(p.name);
      const room = MAX_NAME - 7 - SEPARATOR.length - tool.length;
      const server = clean(p.server).slice(0, Math.max(8, room));
      exposed = `${`${server}${SEPARATOR}${tool}`.slice(0, MAX_NAME - 7)}_${short(p.server, p.name)}`;
    }
    taken.set(exposed, id);
    out.push({ ...p, exposed });
  }
  return out;
}

/** `parley://<server>/<encoded uri>` for a URI several servers offer. */
export function qualifiedUri(server: string, uri: string): string {
  return `parley://${encodeURIComponent(server)}/${encodeURIComponent(uri)}`;
}

/** The server and original URI of a {@link qualifiedUri}, or `undefined` for any other URI. */
export function parseQualifiedUri(uri: string): { server: string; uri: string } | undefined {
  const m = /^parley:\/\/([^/]+)\/(.+)$/.exec(uri);
  if (!m) return undefined;
  try {
    return { server: decodeURIComponent(m[1]), uri: decodeURIComponent(m[2]) };
  } catch {
    return undefined;
  }
}

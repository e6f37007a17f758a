/**
 * Environment for a stdio server child: the definition's `env` merged OVER the inherited environment
 * (PATH, HOME, … stay), per `StdioServerDef.env`. Interim until the config helper's
 * `buildChildEnv(def, parentEnv)` lands in `src/host/config/`; then this delegates to it.
 * @module
 */
import type { StdioServerDef } from '../config/types.js';

export function childEnv(def: StdioServerDef, parentEnv: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(parentEnv)) if (v !== undefined) out[k] = v;
  return { ...out, ...def.env };
}

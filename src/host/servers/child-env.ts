/**
 * Environment for a stdio server child: the inherited environment, then `envFile` variables, then the
 * definition's `env` (later wins; PATH, HOME, … stay). Delegates to the config layer's
 * `buildChildEnv`, which throws `ConfigError` (`unresolved-input`) if an `${input:…}` is still present.
 * @module
 */
import { buildChildEnv } from '../config/env.js';
import type { StdioServerDef } from '../config/types.js';

export function childEnv(def: StdioServerDef, parentEnv: Record<string, string | undefined>): Record<string, string> {
  return buildChildEnv(def, parentEnv);
}

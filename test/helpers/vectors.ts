// Loads the regression vectors. The repo keeps a copy in test/vectors; test/vectors.test.ts checks
// that the copy matches ../shared/vectors whenever that folder exists beside the checkout.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Vector<I = any> {
  id: string;
  input: I;
  expect: string;
}
export function vectors(name: 'schemas' | 'results' | 'roots' | 'config' | 'sequences'): Vector[] {
  return JSON.parse(
    readFileSync(join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..', 'vectors', `${name}.json`), 'utf8'),
  );
}
export function vector(name: Parameters<typeof vectors>[0], id: string): Vector {
  const v = vectors(name).find((x) => x.id === id);
  if (!v) throw new Error(`vector ${id} not found in ${name}.json`);
  return v;
}

/**
 * Range checks of the toolkit's numeric options, so a wrong value fails where it is given with the
 * option's name, bounds and value, instead of misbehaving later (a timer over its range fires at once).
 * @module
 */

/**
 * The longest delay a Node timer keeps, in ms (2^31 - 1, about 24.8 days): a longer one (`Infinity`
 * included) fires after 1 ms, so a "wait forever" elicitation would time out at once.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/** `value` if it is a whole number from `min` to `max`; otherwise a RangeError naming `where`, the bounds and the value. */
export function checkWhole(where: string, value: unknown, min: number, max: number, unit = 'ms'): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return value;
  const bound = max === MAX_TIMER_MS ? `${max} (about 24.8 days, the longest Node timer; there is no "no timeout")` : String(max);
  throw new RangeError(
    `${where} must be a whole number${unit ? ` of ${unit}` : ''} from ${min} to ${bound}; got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`,
  );
}

/** Checks a timer duration in ms (1 ms to about 24.8 days; `min` 0 where 0 means off). */
export function checkTimerMs(where: string, value: unknown, min = 1): number {
  return checkWhole(where, value, min, MAX_TIMER_MS);
}

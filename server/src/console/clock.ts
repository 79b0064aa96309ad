/** Milliseconds since the epoch. Injected so tests move time forward instead of sleeping. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

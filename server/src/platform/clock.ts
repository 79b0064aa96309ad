import { databaseNowMs } from '@walletd/core';

/** Milliseconds since the epoch. Injected so tests move time forward instead of sleeping. */
export type Clock = () => number;

/** The database's time as this process knows it (databaseClock.ts): TOTP steps and sessions do not follow a host clock that lies. */
export const systemClock: Clock = () => databaseNowMs();

import { BaseError } from '@walletd/core';
/** Admin commands print JSON on stdout (logs go to stderr), so they compose with jq and scripts. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function intArg(name: string): (value: string) => number {
  return (value: string) => {
    if (!/^[1-9][0-9]*$/.test(value)) throw new BaseError('usage_invalid', `${name} must be a positive integer, got "${value}"`);
    return Number(value);
  };
}

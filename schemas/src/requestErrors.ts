import type { ErrorObject } from 'ajv';
import { describeErrors } from './registry';

export interface RequestError {
  code: 'validation_failed' | 'invalid_amount';
  message: string;
}

/** `/outputs/0/amount` → `outputs[0].amount`: the field as a caller writes it. */
const fieldName = (instancePath: string) =>
  instancePath
    .slice(1)
    .split('/')
    .map((part, i) => (/^[0-9]+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join('');

const isAmountField = (e: ErrorObject) => /(^|\/)amount$/.test(e.instancePath);

/**
 * Ajv's errors in the API's language. Amount mistakes carry the `invalid_amount` code that
 * amount refusals carry elsewhere, with a sentence instead of the schema's regular expression;
 * the reserved idempotency prefix is named. Anything else: describeErrors.
 */
export function requestError(errors: ErrorObject[] | null | undefined): RequestError {
  const amount = errors?.find(isAmountField);
  if (amount) {
    // One sentence for a wrong pattern and a wrong type (a JSON number): both want a string.
    const message = `${fieldName(amount.instancePath)} must be a positive decimal string such as "0.01"`;
    return { code: 'invalid_amount', message };
  }
  const key = errors?.find((e) => e.instancePath === '/idempotencyKey');
  if (key?.keyword === 'not') {
    return {
      code: 'validation_failed',
      message: 'idempotencyKey must not start with "request:": that prefix is reserved for withdrawals prepared from approved requests',
    };
  }
  if (key?.keyword === 'pattern') {
    return { code: 'validation_failed', message: 'idempotencyKey must be 1 to 128 characters from A-Z, a-z, 0-9 and _ . : -' };
  }
  return { code: 'validation_failed', message: describeErrors(errors) };
}

import { NodeCallError } from '../node/nodeCallError';
import { NodeUnavailableError } from '../node/nodeUnavailable';
import { ResponseTooLarge } from '../node/readCapped';
import { TransientError } from '../node/retry';
import { wrongHeightError } from '../node/wrongHeightError';
import { BaseError, isBaseError, isPublicError } from './BaseError';
import { ERROR_STATUS, INTERNAL_ERROR_CODES, type ErrorCode, isPublicCode, statusForCode } from './codes';
import { InvariantError, invariant } from './invariant';

/** Issue 44 §5: one hierarchy. Every error class of the kit is a BaseError with a code and a retriable flag. */
describe('the error hierarchy', () => {
  it.each([
    ['BaseError', new BaseError('validation_failed', 'x'), 'validation_failed', 400, false],
    ['InvariantError', new InvariantError('x'), 'internal_invariant', 500, false],
    ['TransientError', new TransientError('timed out', 'timeout'), 'node_transient', 500, true],
    ['ResponseTooLarge', new ResponseTooLarge(10), 'node_answer_too_large', 500, false],
    ['NodeCallError (no answer)', new NodeCallError('x', { method: 'm', kind: 'unreachable' }), 'node_error', 502, true],
    ['NodeCallError (timeout)', new NodeCallError('x', { method: 'm', kind: 'timeout' }), 'node_error', 502, true],
    ['NodeCallError (an RPC refusal)', new NodeCallError('x', { method: 'm', kind: 'rpc', rpcCode: -32000 }), 'node_error', 502, false],
    ['NodeCallError (wrong height)', wrongHeightError('n', 'getblock', 1n, 2n), 'node_error', 502, false],
    ['NodeUnavailableError', new NodeUnavailableError('bitcoin', 'testnet', new Error('x')), 'node_error', 502, true],
  ])('%s is a BaseError with its code, status and retriable flag', (_name, e, code, status, retriable) => {
    expect(e).toBeInstanceOf(Error);
    expect(e).toBeInstanceOf(BaseError);
    expect(isBaseError(e)).toBe(true);
    expect(e.code).toBe(code);
    expect(e.status).toBe(status);
    expect(e.retriable).toBe(retriable);
  });

  it('keeps the subclasses told apart by instanceof and name', () => {
    const t = new TransientError('x');
    expect(t).toBeInstanceOf(TransientError);
    expect(t.name).toBe('TransientError');
    expect(t.kind).toBe('unreachable');
    expect(new ResponseTooLarge(5).limit).toBe(5);
    expect(new InvariantError('x').name).toBe('InvariantError');
    expect(new BaseError('conflict', 'x').name).toBe('BaseError');
  });

  it('says retriable for outages and overload, not for bad input, refusals or invariants; an error may say otherwise', () => {
    for (const code of ['rate_limited', 'node_error', 'unavailable', 'node_transient', 'node_answer_invalid'] as ErrorCode[])
      expect(new BaseError(code, 'x').retriable).toBe(true);
    for (const code of [
      'validation_failed',
      'policy_denied',
      'insufficient_funds',
      'conflict',
      'internal',
      'config_invalid',
    ] as ErrorCode[])
      expect(new BaseError(code, 'x').retriable).toBe(false);
    expect(new BaseError('conflict', 'lease lost', { retriable: true }).retriable).toBe(true);
    expect(new BaseError('unavailable', 'halted', { retriable: false }).retriable).toBe(false);
  });

  it('keeps message, details and cause as before', () => {
    const cause = new Error('inner');
    const e = new BaseError('policy_denied', 'refused', { details: { policyIds: '1' }, cause });
    expect(e.message).toBe('refused');
    expect(e.details).toEqual({ policyIds: '1' });
    expect(e.cause).toBe(cause);
    expect(new BaseError('conflict', 'x').cause).toBeUndefined();
  });
});

describe('public and internal codes', () => {
  it('leaves the public table (the README lists it) as it was', () => {
    expect(ERROR_STATUS).toEqual({
      bad_request: 400,
      validation_failed: 400,
      malformed_json: 400,
      invalid_address: 400,
      invalid_amount: 400,
      unauthorized: 401,
      mfa_required: 401,
      plan_required: 402,
      forbidden: 403,
      dashboard_only: 403,
      ip_not_allowed: 403,
      role_insufficient: 403,
      plan_forbidden: 403,
      plan_cap_reached: 403,
      policy_denied: 403,
      policy_approval_required: 403,
      policy_approvals_pending: 403,
      address_cooling_off: 403,
      csrf_failed: 403,
      step_up_required: 403,
      mfa_enrollment_required: 403,
      not_found: 404,
      method_not_allowed: 405,
      conflict: 409,
      idempotency_conflict: 409,
      request_expired: 409,
      chain_not_followed: 409,
      payload_too_large: 413,
      unsupported_media_type: 415,
      unprocessable: 422,
      unknown_asset: 422,
      chain_not_supported: 422,
      insufficient_funds: 422,
      rate_limited: 429,
      internal: 500,
      node_error: 502,
      kms_error: 502,
      unavailable: 503,
    });
  });

  it('makes every internal code a 500 that is not public, and none of them a public name', () => {
    for (const code of INTERNAL_ERROR_CODES) {
      expect(statusForCode(code)).toBe(500);
      expect(isPublicCode(code)).toBe(false);
      expect(isPublicError(new BaseError(code, 'x'))).toBe(false);
    }
    expect(new Set(INTERNAL_ERROR_CODES).size).toBe(INTERNAL_ERROR_CODES.length);
    for (const code of Object.keys(ERROR_STATUS)) expect(isPublicCode(code)).toBe(true);
    expect(isPublicCode('toString')).toBe(false);
  });

  it('isPublicError: a BaseError with a public code, nothing else', () => {
    expect(isPublicError(new BaseError('not_found', 'x'))).toBe(true);
    expect(isPublicError(new NodeCallError('x', { method: 'm', kind: 'http', status: 500 }))).toBe(true);
    expect(isPublicError(new InvariantError('x'))).toBe(false);
    expect(isPublicError(new TransientError('x'))).toBe(false);
    expect(isPublicError(new Error('x'))).toBe(false);
    expect(isPublicError({ code: 'not_found', message: 'x' })).toBe(false);
  });
});

describe('invariant', () => {
  it('throws an InvariantError when the condition fails, with the message (made only then)', () => {
    expect(() => invariant(false, 'a row that must exist')).toThrow(InvariantError);
    expect(() => invariant(0, () => 'lazy')).toThrow('lazy');
    let made = 0;
    invariant(true, () => `never ${++made}`);
    expect(made).toBe(0);
  });

  it('narrows the value after it', () => {
    const v: string | undefined = ['a'][0];
    invariant(v !== undefined, 'one element');
    expect(v.length).toBe(1);
  });
});

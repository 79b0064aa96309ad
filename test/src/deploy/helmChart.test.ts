import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { renderChart } from './helmTemplate';

/**
 * Issue 48 §2: deploy/helm/walletd renders (helmTemplate.ts, the chart's template subset; no helm
 * binary here) to objects that the official Kubernetes schemas accept (kubernetes-models'
 * validate(), run by test/scripts/validate-k8s.mjs), and that fit together: selectors match their
 * pods, probes name declared ports, mounts name declared volumes, the HPA and PDBs find their
 * Deployments, the ServiceMonitor finds its Service. The ServiceMonitor (a prometheus-operator
 * CRD) has no schema here: only those cross-checks cover it.
 */
const ROOT = join(__dirname, '..', '..', '..');
const CHART = join(ROOT, 'deploy', 'helm', 'walletd');
type Obj = Record<string, any>;

function validate(docs: Obj[]): { kind: string; name: string; error: string | null; schema: string }[] {
  const r = spawnSync(process.execPath, [join(ROOT, 'test', 'scripts', 'validate-k8s.mjs')], {
    input: JSON.stringify(docs),
    encoding: 'utf8',
    cwd: ROOT,
  });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout);
}
const byKind = (docs: Obj[], kind: string) => docs.filter((d) => d.kind === kind);
const named = (docs: Obj[], kind: string, name: string) => {
  const d = docs.find((x) => x.kind === kind && x.metadata.name === name);
  if (!d) throw new Error(`no ${kind} ${name}`);
  return d;
};
const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([k, v]) => labels?.[k] === v);

function checkWiring(docs: Obj[]): void {
  const deployments = byKind(docs, 'Deployment');
  for (const d of deployments) {
    const pod = d.spec.template;
    expect(matches(d.spec.selector.matchLabels, pod.metadata.labels)).toBe(true);
    expect(pod.spec.securityContext.runAsNonRoot).toBe(true);
    const volumes = new Set(pod.spec.volumes.map((v: Obj) => v.name));
    for (const c of pod.spec.containers) {
      const ports = new Set((c.ports ?? []).map((p: Obj) => p.name));
      for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) expect(ports.has(c[probe].httpGet.port)).toBe(true);
      for (const m of c.volumeMounts) expect(volumes.has(m.name)).toBe(true);
      expect(c.args[0]).toBe('serve');
      expect(c.env.find((e: Obj) => e.name === 'DATABASE_URL').valueFrom.secretKeyRef.name).toBe('walletd-database');
    }
  }
  for (const pdb of byKind(docs, 'PodDisruptionBudget')) {
    expect(deployments.filter((d) => matches(pdb.spec.selector.matchLabels, d.spec.template.metadata.labels))).toHaveLength(1);
  }
  for (const svc of byKind(docs, 'Service')) {
    const pods = deployments.filter((d) => matches(svc.spec.selector, d.spec.template.metadata.labels));
    expect(pods.length).toBeGreaterThan(0);
  }
  for (const sm of byKind(docs, 'ServiceMonitor')) {
    const svcs = byKind(docs, 'Service').filter((s) => matches(sm.spec.selector.matchLabels, s.metadata.labels));
    expect(svcs).toHaveLength(1);
    expect(svcs[0]!.spec.ports.map((p: Obj) => p.name)).toContain(sm.spec.endpoints[0].port);
    // Every pod that serves /metrics is behind it: api, dispatcher and indexer.
    const scraped = deployments
      .filter((d) => matches(svcs[0]!.spec.selector, d.spec.template.metadata.labels))
      .map((d) => d.spec.template.metadata.labels['app.kubernetes.io/component']);
    expect(scraped).toEqual(expect.arrayContaining(['api', 'dispatcher', 'indexer']));
    // …and each of those declares the named port the Service targets.
    const target = svcs[0]!.spec.ports[0].targetPort;
    for (const d of deployments.filter((x) =>
      ['api', 'dispatcher', 'indexer'].includes(x.spec.template.metadata.labels['app.kubernetes.io/component']),
    ))
      expect(d.spec.template.spec.containers[0].ports.map((p: Obj) => p.name)).toContain(target);
  }
}

describe('deploy/helm/walletd', () => {
  it('renders with its default values to objects the Kubernetes schemas accept, wired together', () => {
    const docs = renderChart(CHART) as Obj[];
    const results = validate(docs);
    expect(results.filter((r) => r.error)).toEqual([]);
    expect(results.filter((r) => r.schema === 'none').map((r) => r.kind)).toEqual(['ServiceMonitor']);
    const roles = byKind(docs, 'Deployment').map((d) => d.spec.template.spec.containers[0].args[2]);
    expect(roles.sort()).toEqual(['api', 'console', 'dispatcher', 'indexer']);
    // The roles that serve no API are probed on their probes listener (server.probesPort).
    for (const role of ['dispatcher', 'indexer']) {
      const c = named(docs, 'Deployment', `walletd-walletd-${role}`).spec.template.spec.containers[0];
      expect(c.env.find((e: Obj) => e.name === 'WALLETD_PROBES_PORT').value).toBe('9090');
      expect(c.ports).toEqual([{ name: 'probes', containerPort: 9090 }]);
      expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'probes' });
    }
    expect(named(docs, 'Deployment', 'walletd-walletd-dispatcher').spec.replicas).toBeGreaterThanOrEqual(2);
    expect(named(docs, 'Deployment', 'walletd-walletd-indexer').spec.replicas).toBe(2);
    // With the HPA on, the Deployment leaves replicas to it.
    expect(named(docs, 'Deployment', 'walletd-walletd-api').spec.replicas).toBeUndefined();
    expect(named(docs, 'HorizontalPodAutoscaler', 'walletd-walletd-api').spec.scaleTargetRef.name).toBe('walletd-walletd-api');
    const job = named(docs, 'Job', 'walletd-walletd-migrate');
    expect(job.metadata.annotations['helm.sh/hook']).toBe('pre-install,pre-upgrade');
    expect(job.spec.template.spec.containers[0].args).toEqual(['migrate']);
    expect(JSON.parse(named(docs, 'ConfigMap', 'walletd-walletd-config').data['walletd.json']).chains).toEqual([]);
    const api = named(docs, 'Deployment', 'walletd-walletd-api').spec.template.spec.containers[0];
    expect(api.livenessProbe.httpGet.path).toBe('/healthz');
    expect(api.readinessProbe.httpGet.path).toBe('/readyz');
    expect(api.env.map((e: Obj) => e.name)).not.toContain('DATABASE_REPLICA_URL');
    checkWiring(docs);
  });

  it('renders the other branches of its values: replica, chains, no HPA, no console, extra env and volumes', () => {
    const docs: Obj[] = renderChart(CHART, {
      database: { replica: { enabled: true } },
      config: { chains: [{ chain: 'ethereum', network: 'mainnet', rpcUrl: 'http://eth:8545' }] },
      api: { autoscaling: { enabled: false }, replicas: 3 },
      console: { enabled: false },
      serviceMonitor: { enabled: false },
      extraEnv: [{ name: 'PKCS11_MODULE', value: '/usr/lib/softhsm/libsofthsm2.so' }],
      extraVolumes: [{ name: 'hsm', secret: { secretName: 'hsm-token' } }],
      extraVolumeMounts: [{ name: 'hsm', mountPath: '/var/lib/softhsm' }],
    });
    expect(validate(docs).filter((r) => r.error)).toEqual([]);
    expect(byKind(docs, 'HorizontalPodAutoscaler')).toEqual([]);
    expect(byKind(docs, 'ServiceMonitor')).toEqual([]);
    expect(docs.filter((d) => d.metadata.name.endsWith('console'))).toEqual([]);
    const api = named(docs, 'Deployment', 'walletd-walletd-api');
    expect(api.spec.replicas).toBe(3);
    const c = api.spec.template.spec.containers[0];
    expect(c.env.find((e: Obj) => e.name === 'DATABASE_REPLICA_URL').valueFrom.secretKeyRef.key).toBe('replicaUrl');
    expect(c.env.map((e: Obj) => e.name)).toContain('PKCS11_MODULE');
    expect(c.volumeMounts.map((m: Obj) => m.name)).toContain('hsm');
    expect(JSON.parse(named(docs, 'ConfigMap', 'walletd-walletd-config').data['walletd.json']).chains[0].rpcUrl).toBe('http://eth:8545');
    checkWiring(docs);
  });

  it('the schema check can fail: a containerPort given as a name is refused', () => {
    const docs = renderChart(CHART) as Obj[];
    const api = named(docs, 'Deployment', 'walletd-walletd-api');
    api.spec.template.spec.containers[0].ports[0].containerPort = 'http';
    const bad = validate([api]);
    expect(bad[0]!.error).toMatch(/containerPort/);
  });

  it('refuses a template outside the subset it renders', () => {
    expect(() => renderChart(CHART, { config: { chains: 'x' } })).not.toThrow();
    expect(() => renderChart(CHART, { image: { tag: null } })).toThrow(/image\.tag has no value/);
  });
});

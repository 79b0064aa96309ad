// Validates Kubernetes objects (a JSON array on stdin) against the official OpenAPI schemas that
// kubernetes-models ships (its classes' validate()); prints a JSON array of
// {kind, name, error|null, schema: 'kubernetes'|'none'}. kubernetes-models is ES modules only,
// which jest's CommonJS runtime cannot load: test/src/deploy/helmChart.test.ts runs this with node.
import { readFileSync } from 'node:fs';

const docs = JSON.parse(readFileSync(0, 'utf8'));
const out = [];
for (const doc of docs) {
  const [group, version] = doc.apiVersion.includes('/') ? doc.apiVersion.split('/') : [null, doc.apiVersion];
  const name = doc.metadata?.name;
  let cls;
  try {
    const mod = await import(group ? `kubernetes-models/${group}/${version}` : `kubernetes-models/${version}`);
    cls = mod[doc.kind];
  } catch {
    cls = undefined;
  }
  if (!cls) {
    out.push({ kind: doc.kind, name, error: null, schema: 'none' });
    continue;
  }
  try {
    new cls(doc).validate();
    out.push({ kind: doc.kind, name, error: null, schema: 'kubernetes' });
  } catch (e) {
    out.push({ kind: doc.kind, name, error: String(e.message), schema: 'kubernetes' });
  }
}
process.stdout.write(JSON.stringify(out));

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';

/**
 * Renders deploy/helm/walletd without a helm binary (none is installed here and npm has no Go
 * template engine): a renderer for exactly the subset of Helm's language the chart keeps to, and
 * a loud failure on anything else, so the chart cannot drift into constructs this does not read.
 * Subset: `{{ .Values.a.b }}`, `{{ .Release.Name }}`, `| quote`, `toYaml X | nindent N`,
 * `toJson X | quote`, `if X` / `if not X` / `else` / `end`, and `{{-` `-}}` whitespace trimming,
 * with Go's truthiness (false, 0, "", empty list or map, missing). Helm's own rendering may differ
 * in YAML formatting details (key order of toYaml, quoting), not in what the objects say.
 */
type Node = { text: string } | { expr: string } | { cond: string; yes: Node[]; else: Node[] };
type Scope = { Values: unknown; Release: { Name: string; Namespace: string } };

const ACTION = /\{\{(-?)\s*(.*?)\s*(-?)\}\}/gs;

function tokens(src: string): ({ text: string } | { action: string })[] {
  const out: ({ text: string } | { action: string })[] = [];
  let last = 0;
  let trimNext = false;
  for (const m of src.matchAll(ACTION)) {
    let text = src.slice(last, m.index);
    if (trimNext) text = text.replace(/^\s+/, '');
    if (m[1] === '-') text = text.replace(/\s+$/, '');
    out.push({ text }, { action: m[2] ?? '' });
    trimNext = m[3] === '-';
    last = (m.index ?? 0) + m[0].length;
  }
  let tail = src.slice(last);
  if (trimNext) tail = tail.replace(/^\s+/, '');
  out.push({ text: tail });
  return out;
}

function tree(src: string): Node[] {
  const root: Node[] = [];
  const stack: { nodes: Node[]; node?: { cond: string; yes: Node[]; else: Node[] } }[] = [{ nodes: root }];
  for (const t of tokens(src)) {
    const top = stack[stack.length - 1]!;
    if ('text' in t) top.nodes.push(t);
    else if (t.action.startsWith('if ')) {
      const node = { cond: t.action.slice(3).trim(), yes: [] as Node[], else: [] as Node[] };
      top.nodes.push(node);
      stack.push({ nodes: node.yes, node });
    } else if (t.action === 'else') {
      if (!top.node) throw new Error('else outside if');
      top.nodes = top.node.else;
    } else if (t.action === 'end') {
      if (stack.length === 1) throw new Error('end without if');
      stack.pop();
    } else top.nodes.push({ expr: t.action });
  }
  if (stack.length !== 1) throw new Error('if without end');
  return root;
}

function lookup(path: string, scope: Scope): unknown {
  if (!/^(\.[A-Za-z_][A-Za-z0-9_]*)+$/.test(path)) throw new Error(`not in the chart's template subset: ${path}`);
  let v: unknown = scope;
  for (const key of path.slice(1).split('.')) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;
  return v;
}

function truthy(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0;
  if (v && typeof v === 'object') return Object.keys(v).length > 0;
  return Boolean(v);
}

function evaluate(expr: string, scope: Scope): string {
  let m = /^toYaml (\S+) \| nindent (\d+)$/.exec(expr);
  if (m) {
    const pad = ' '.repeat(Number(m[2]));
    const body = stringify(lookup(m[1]!, scope)).trimEnd();
    return `\n${body
      .split('\n')
      .map((l) => pad + l)
      .join('\n')}`;
  }
  m = /^toJson (\S+) \| quote$/.exec(expr);
  if (m) return JSON.stringify(JSON.stringify(lookup(m[1]!, scope)));
  m = /^(\S+) \| quote$/.exec(expr);
  if (m) return JSON.stringify(String(lookup(m[1]!, scope) ?? ''));
  const v = lookup(expr, scope);
  if (v === undefined || v === null) throw new Error(`${expr} has no value`);
  if (typeof v === 'object') throw new Error(`${expr} is not a scalar: use toYaml`);
  return String(v);
}

function run(nodes: Node[], scope: Scope): string {
  return nodes
    .map((n) => {
      if ('text' in n) return n.text;
      if ('expr' in n) return evaluate(n.expr, scope);
      const not = n.cond.startsWith('not ');
      const value = truthy(lookup(not ? n.cond.slice(4).trim() : n.cond, scope));
      return run(value !== not ? n.yes : n.else, scope);
    })
    .join('');
}

function merge(base: unknown, over: unknown): unknown {
  if (!over || typeof over !== 'object' || Array.isArray(over) || !base || typeof base !== 'object' || Array.isArray(base)) {
    return over === undefined ? base : over;
  }
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [k, v] of Object.entries(over)) out[k] = merge(out[k], v);
  return out;
}

/** The chart's objects for these values (merged over values.yaml, as `helm template --set` would). */
export function renderChart(chartDir: string, overrides: unknown = {}, release = 'walletd'): Record<string, unknown>[] {
  const values = merge(parse(readFileSync(join(chartDir, 'values.yaml'), 'utf8')), overrides);
  const scope: Scope = { Values: values, Release: { Name: release, Namespace: 'default' } };
  const docs: Record<string, unknown>[] = [];
  for (const file of readdirSync(join(chartDir, 'templates')).sort()) {
    if (!file.endsWith('.yaml')) continue;
    const text = run(tree(readFileSync(join(chartDir, 'templates', file), 'utf8')), scope);
    for (const part of text.split(/^---\s*$/m)) {
      const doc = parse(part) as Record<string, unknown> | null;
      if (doc) docs.push(doc);
    }
  }
  return docs;
}

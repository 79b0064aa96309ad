import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import Ajv from 'ajv';
import { BaseError } from '@walletd/plugin-kit';
import { configSchema } from './schema';
import { DEFAULT_CONFIG } from './defaults';
import type { LogLevel, WalletdConfig } from './types';

export class ConfigError extends BaseError {
  constructor(message: string) {
    super('config_invalid', message);
    this.name = 'ConfigError';
  }
}

export interface LoadConfigOptions {
  /** Path of the JSON config file; WALLETD_CONFIG when omitted; none at all is fine. */
  file?: string | undefined;
  env?: NodeJS.ProcessEnv;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function merge(base: Json, over: Json): Json {
  const out: Json = { ...base };
  for (const [k, v] of Object.entries(over)) {
    out[k] = isObject(v) && isObject(out[k]) ? merge(out[k] as Json, v) : v;
  }
  return out;
}

const ajv = new Ajv({ allErrors: true, strict: false });
const validate = ajv.compile(configSchema);

function describeErrors(source: string): string {
  const lines = (validate.errors ?? []).map((e) => {
    const field = e.instancePath || '/';
    const extra = e.keyword === 'additionalProperties' ? ` (unknown field "${String(e.params.additionalProperty)}")` : '';
    return `${field} ${e.message ?? 'is invalid'}${extra}`;
  });
  return `invalid config in ${source}: ${lines.join('; ')}`;
}

function intFromEnv(name: string, value: string): number {
  if (!/^[0-9]+$/.test(value)) throw new ConfigError(`environment variable ${name}="${value}" is not an integer`);
  return Number(value);
}

/** File (validated), then environment overrides (validated again, naming the variable). */
export function loadConfig(options: LoadConfigOptions = {}): WalletdConfig {
  const env = options.env ?? process.env;
  const file = options.file ?? env.WALLETD_CONFIG;
  let fromFile: Json = {};
  let source = 'built-in defaults';
  if (file) {
    const path = resolve(file);
    source = path;
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      throw new ConfigError(`cannot read config file ${path}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    try {
      fromFile = JSON.parse(text) as Json;
    } catch (e) {
      throw new ConfigError(`config file ${path} is not valid JSON: ${(e as Error).message}`);
    }
    if (!validate(fromFile)) throw new ConfigError(describeErrors(path));
  }

  const overrides: Json = {};
  const set = (path: string[], value: unknown) => {
    let node = overrides;
    for (const key of path.slice(0, -1)) {
      node[key] ??= {};
      node = node[key] as Json;
    }
    node[path[path.length - 1] as string] = value;
  };
  if (env.DATABASE_URL) set(['database', 'url'], env.DATABASE_URL);
  if (env.DATABASE_REPLICA_URL) set(['database', 'replicaUrl'], env.DATABASE_REPLICA_URL);
  if (env.PORT) set(['server', 'port'], intFromEnv('PORT', env.PORT));
  if (env.HOST) set(['server', 'host'], env.HOST);
  if (env.WALLETD_PROBES_PORT) set(['server', 'probesPort'], intFromEnv('WALLETD_PROBES_PORT', env.WALLETD_PROBES_PORT));
  if (env.LOG_LEVEL) set(['log', 'level'], env.LOG_LEVEL as LogLevel);
  if (env.WALLETD_DATA_DIR) set(['dataDir'], env.WALLETD_DATA_DIR);
  if (env.WALLETD_MASTER_KEY_FILE) set(['masterKeyFile'], env.WALLETD_MASTER_KEY_FILE);
  if (env.WALLETD_EMBEDDED_PG_PORT) set(['database', 'embeddedPort'], intFromEnv('WALLETD_EMBEDDED_PG_PORT', env.WALLETD_EMBEDDED_PG_PORT));
  if (env.WALLETD_WEBHOOK_ALLOW_CIDRS !== undefined) {
    set(
      ['webhooks', 'allowCidrs'],
      env.WALLETD_WEBHOOK_ALLOW_CIDRS.split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );
  }
  if (env.WALLETD_DEVNET_PORT) set(['devnet', 'port'], intFromEnv('WALLETD_DEVNET_PORT', env.WALLETD_DEVNET_PORT));
  if (env.WALLETD_DEVNETS !== undefined) {
    set(
      ['devnet', 'chains'],
      env.WALLETD_DEVNETS.split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );
  }
  if (env.WALLETD_DEVNET) set(['devnet', 'enabled'], env.WALLETD_DEVNET !== '0' && env.WALLETD_DEVNET !== 'false');
  if (env.WALLETD_CONSOLE_PORT) set(['console', 'port'], intFromEnv('WALLETD_CONSOLE_PORT', env.WALLETD_CONSOLE_PORT));
  if (env.WALLETD_CONSOLE_PUBLIC_URL) set(['console', 'publicUrl'], env.WALLETD_CONSOLE_PUBLIC_URL);
  if (env.WALLETD_BOOTSTRAP) set(['bootstrap'], env.WALLETD_BOOTSTRAP !== '0' && env.WALLETD_BOOTSTRAP !== 'false');

  const merged = merge(merge(DEFAULT_CONFIG as unknown as Json, fromFile), overrides);
  if (!validate(merged)) throw new ConfigError(describeErrors(`${source} with environment overrides`));
  const config = merged as unknown as WalletdConfig;
  // A claim must outlive the attempt it covers, or another dispatcher re-sends while it is in flight.
  if (config.webhooks.leaseMs < config.webhooks.timeoutMs * 2) {
    throw new ConfigError(
      `invalid config in ${source}: /webhooks/leaseMs (${config.webhooks.leaseMs}) must be at least twice /webhooks/timeoutMs (${config.webhooks.timeoutMs})`,
    );
  }
  // A declared network's block time is the poll interval unless one is set (docs/guide/chains.md).
  config.chains = config.chains.map((c) =>
    c.blockTimeMs !== undefined && c.pollIntervalMs === undefined ? { ...c, pollIntervalMs: c.blockTimeMs } : c,
  );
  config.dataDir = resolve(config.dataDir);
  config.source = source;
  return config;
}

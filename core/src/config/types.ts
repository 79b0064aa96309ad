export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface WalletdConfig {
  /** Where walletd keeps local state: the embedded database and the generated master key. */
  dataDir: string;
  server: {
    host: string;
    port: number;
    /** Off by default so that X-Forwarded-For cannot spoof the client address. */
    trustProxy: boolean | number | string[];
    bodyLimitBytes: number;
  };
  database: {
    /** null: start the embedded PostgreSQL under `<dataDir>/pg`. */
    url: string | null;
    embeddedPort: number;
    poolMax: number;
  };
  log: { level: LogLevel };
  /** null: `<dataDir>/master.key`, created on first start. WALLETD_MASTER_KEY overrides it. */
  masterKeyFile: string | null;
  rateLimit: { perIpPerMinute: number; writesPerKeyPerMinute: number };
  /** On an empty database, create a first company, owner and all-powerful API key. */
  bootstrap: boolean;
  /** Where the config came from, for messages. Not part of the file. */
  source: string;
}

export const DEFAULT_CONFIG: Omit<WalletdConfig, 'source'> = {
  dataDir: '.walletd',
  server: { host: '0.0.0.0', port: 8080, trustProxy: false, bodyLimitBytes: 102400 },
  database: { url: null, embeddedPort: 54329, poolMax: 10 },
  log: { level: 'info' },
  masterKeyFile: null,
  rateLimit: { perIpPerMinute: 300, writesPerKeyPerMinute: 20 },
  bootstrap: true,
};

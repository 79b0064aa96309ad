/** JSON Schema of the walletd config file. Every knob is documented in README.md#configuration. */
export const configSchema = {
  $id: 'walletd-config',
  type: 'object',
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    dataDir: { type: 'string', minLength: 1 },
    plugins: {
      description: 'Chain plugin packages to load by name, each exporting createPlugin()',
      type: 'array',
      uniqueItems: true,
      items: { type: 'string', minLength: 1 },
    },
    server: {
      type: 'object',
      additionalProperties: false,
      properties: {
        host: { type: 'string', minLength: 1 },
        port: { type: 'integer', minimum: 0, maximum: 65535 },
        trustProxy: {
          description: 'Express trust proxy setting: false, true, a hop count, or a list of proxy CIDRs',
          oneOf: [{ type: 'boolean' }, { type: 'integer', minimum: 0 }, { type: 'array', items: { type: 'string' } }],
        },
        bodyLimitBytes: { type: 'integer', minimum: 1024, maximum: 10485760 },
      },
    },
    database: {
      type: 'object',
      additionalProperties: false,
      properties: {
        url: { type: ['string', 'null'] },
        embeddedPort: { type: 'integer', minimum: 1, maximum: 65535 },
        poolMax: { type: 'integer', minimum: 1, maximum: 200 },
        readPoolMax: { type: 'integer', minimum: 1, maximum: 200 },
        readTimeoutMs: { type: 'integer', minimum: 100, maximum: 600000 },
        preparedStatements: { type: 'boolean' },
        minFreeBytes: { type: 'integer', minimum: 0 },
        embeddedRestartAttempts: { type: 'integer', minimum: 1, maximum: 1000 },
        embeddedRestartBackoffMs: { type: 'integer', minimum: 50, maximum: 600000 },
      },
    },
    log: {
      type: 'object',
      additionalProperties: false,
      properties: {
        level: { enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] },
      },
    },
    masterKeyFile: { type: ['string', 'null'] },
    rateLimit: {
      type: 'object',
      additionalProperties: false,
      properties: {
        perIpPerMinute: { type: 'integer', minimum: 1 },
        writesPerKeyPerMinute: { type: 'integer', minimum: 1 },
      },
    },
    bootstrap: { type: 'boolean' },
    console: {
      type: 'object',
      additionalProperties: false,
      properties: {
        host: { type: 'string' },
        port: { type: 'integer', minimum: 0, maximum: 65535 },
        secureCookies: { type: 'boolean' },
        idleTimeoutMs: { type: 'integer', minimum: 60000, maximum: 86400000 },
        absoluteTimeoutMs: { type: 'integer', minimum: 60000, maximum: 2592000000 },
        stepUpMs: { type: 'integer', minimum: 30000, maximum: 3600000 },
        lockoutFailures: { type: 'integer', minimum: 1, maximum: 1000 },
        lockoutMs: { type: 'integer', minimum: 1000, maximum: 86400000 },
        linkTtlMs: { type: 'integer', minimum: 60000, maximum: 2592000000 },
      },
    },
    devnet: {
      type: 'object',
      additionalProperties: false,
      properties: {
        enabled: { type: 'boolean' },
        port: { type: 'integer', minimum: 1, maximum: 65535 },
        // Names are checked against the local chains the build has when `serve` starts them.
        chains: { type: 'array', uniqueItems: true, items: { type: 'string', pattern: '^[a-z][a-z0-9-]*$' } },
        ports: {
          type: 'object',
          additionalProperties: false,
          patternProperties: { '^[a-z][a-z0-9-]*$': { type: 'integer', minimum: 1, maximum: 65535 } },
        },
      },
    },
    indexer: {
      type: 'object',
      additionalProperties: false,
      properties: {
        threads: { type: 'integer', minimum: 1, maximum: 64 },
        maxLagBlocks: { type: 'integer', minimum: 0, maximum: 1000000 },
        healthMaxAgeMs: { type: 'integer', minimum: 45000, maximum: 86400000 },
        stalledAfterMs: { type: 'integer', minimum: 1000, maximum: 86400000 },
        leaseTtlMs: { type: 'integer', minimum: 1000, maximum: 600000 },
        pipelineDepth: { type: 'integer', minimum: 1, maximum: 256 },
      },
    },
    reconciliation: {
      type: 'object',
      additionalProperties: false,
      properties: {
        intervalMs: { oneOf: [{ const: 0 }, { type: 'integer', minimum: 1000, maximum: 86400000 }] },
        addressesPerRun: { type: 'integer', minimum: 1, maximum: 1000000 },
        nodeCallsPerSecond: { type: 'integer', minimum: 1, maximum: 10000 },
      },
    },
    chains: {
      type: 'array',
      items: {
        type: 'object',
        required: ['chain', 'network', 'rpcUrl'],
        additionalProperties: false,
        properties: {
          chain: { type: 'string' },
          network: { type: 'string' },
          rpcUrl: { type: 'string', minLength: 1 },
          rpcTimeoutMs: { type: 'integer', minimum: 100, maximum: 30000 },
          rpcRetries: { type: 'integer', minimum: 0, maximum: 5 },
          maxResponseBytes: { type: 'integer', minimum: 65536, maximum: 1073741824 },
          confirmations: { type: 'integer', minimum: 1, maximum: 10000 },
          finality: { enum: ['confirmations', 'finalized'] },
          pollIntervalMs: { type: 'integer', minimum: 50, maximum: 600000 },
          startBlock: { oneOf: [{ type: 'integer', minimum: 0 }, { const: 'latest' }] },
          reorgWindow: { type: 'integer', minimum: 1, maximum: 10000 },
          maxLagBlocks: { type: 'integer', minimum: 0, maximum: 1000000 },
          tokens: {
            type: 'array',
            items: {
              type: 'object',
              required: ['contract', 'symbol', 'decimals'],
              additionalProperties: false,
              properties: {
                contract: { type: 'string', minLength: 1 },
                symbol: { type: 'string', minLength: 1, maxLength: 20 },
                decimals: { type: 'integer', minimum: 0, maximum: 36 },
              },
            },
          },
        },
      },
    },
    webhooks: {
      type: 'object',
      additionalProperties: false,
      properties: {
        timeoutMs: { type: 'integer', minimum: 100, maximum: 60000 },
        allowCidrs: { type: 'array', items: { type: 'string' } },
        batchSize: { type: 'integer', minimum: 1, maximum: 1000 },
        concurrency: { type: 'integer', minimum: 1, maximum: 1000 },
        maxInFlightPerWebhook: { type: 'integer', minimum: 1, maximum: 1000 },
        pollIntervalMs: { type: 'integer', minimum: 10, maximum: 60000 },
        leaseMs: { type: 'integer', minimum: 1000, maximum: 600000 },
        retryBaseMs: { type: 'integer', minimum: 10, maximum: 60000 },
        telegramApiBase: { type: 'string' },
        deliveryRetentionDays: { type: 'integer', minimum: 0, maximum: 36500 },
      },
    },
  },
} as const;

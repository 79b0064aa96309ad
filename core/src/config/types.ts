import type { MasterKeySettings } from './masterKeySettings';
import type { SignerSettings } from './signerSettings';
import type { MailSettings } from './mailSettings';
import type { ChainSettings, DevnetChain } from './chainSettings';

export type { AutoBumpSettings, ChainSettings, DevnetChain, TokenSettings } from './chainSettings';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/** The members' console (the `console` role of `serve`, on by default): sign-in, sessions, lockout. */
export interface ConsoleSettings {
  host: string;
  port: number;
  /** Mark cookies Secure even when the request came over plain HTTP (TLS ended in front of walletd). */
  secureCookies: boolean;
  /** A session unused for this long ends. */
  idleTimeoutMs: number;
  /** A session ends this long after sign-in, used or not. */
  absoluteTimeoutMs: number;
  /** How recent a TOTP code must be for a sensitive action (step-up). */
  stepUpMs: number;
  /** Failed sign-ins per email and IP within `lockoutMs` before that pair is locked out for `lockoutMs`. */
  lockoutFailures: number;
  lockoutMs: number;
  /** How long an invitation or password-reset link stays usable. */
  linkTtlMs: number;
  /**
   * A member invited or promoted in the console into a role that may approve: their votes count
   * only this long after (unless another owner confirms them with a step-up). 0 turns it off.
   */
  approverCoolingOffMs: number;
  /** Sign-in (and link) attempts per client IP per minute, any email; over it: 429 with Retry-After. */
  signInPerIpPerMinute: number;
  /** Sign-in (and link) attempts per minute from all IPs together; over it: 429 with Retry-After. */
  signInPerMinute: number;
  /** Password hashes (argon2id) running at once per process; 8 times as many wait, more get 503. */
  maxConcurrentHashes: number;
  /**
   * Where people open the console (`https://console.example.com`): passkeys are bound to its host
   * (the WebAuthn RP id) and origin. Null: `http://localhost:<console.port>` (or the configured host).
   */
  publicUrl: string | null;
}

export interface WalletdConfig {
  /** Where walletd keeps local state: the embedded database and the generated master key. */
  dataDir: string;
  server: {
    host: string;
    port: number;
    /** Off by default so that X-Forwarded-For cannot spoof the client address. */
    trustProxy: boolean | number | string[];
    bodyLimitBytes: number;
    /** Headers, and the whole request with its body, within these (API and console): else 408, connection closed. */
    headersTimeoutMs: number;
    requestTimeoutMs: number;
    /** A listener of its own answering only /healthz, /readyz and /metrics, on `host` (null: none). */
    probesPort: number | null;
  };
  database: {
    /** null: start the embedded PostgreSQL under `<dataDir>/pg`. */
    url: string | null;
    embeddedPort: number;
    /** Connections of the main pool: writes, the event feed, the dispatcher, the indexer, every fast read. */
    poolMax: number;
    /**
     * Connections of the API's own pool for the reads that grow with history (transaction list,
     * balances): slow ones queue here and never take the main pool's connections.
     */
    readPoolMax: number;
    /** Such a read is cancelled after this long (statement_timeout) and answers 503 `unavailable`. */
    readTimeoutMs: number;
    /**
     * A streaming replica of `url` (or of the embedded cluster) for the reads of `readPoolMax`'s
     * pool; null: they run on the primary. Everything else stays on the primary.
     */
    replicaUrl: string | null;
    /** How long such a read waits for the replica to replay what the primary had committed when it began; then 503. */
    replicaMaxLagMs: number;
    /** Hot-path statements prepared per connection (false for PgBouncer transaction pooling < 1.21). */
    preparedStatements: boolean;
    /**
     * The reads pool's timeout and read-only mode as its connections' startup settings (one round
     * trip per read); false runs each read in a read-only transaction with `SET LOCAL` instead,
     * for PgBouncer, which refuses (or, told to ignore `options`, drops) such settings.
     */
    readLimitsAtConnect: boolean;
    /**
     * Free-space floor of the embedded cluster's disk: below it the indexer pauses writes and
     * `/readyz` says "disk full on <path>", before PostgreSQL fails (0: no floor).
     */
    minFreeBytes: number;
    /** Consecutive failed restarts of a dead embedded cluster after which `/healthz` fails. */
    embeddedRestartAttempts: number;
    /** First wait after a failed restart of the embedded cluster, doubling up to 30 s. */
    embeddedRestartBackoffMs: number;
    /** Client-side deadline (pg's `query_timeout`) of every main-pool statement; migrations run without it. */
    queryTimeoutMs: number;
    /** How long a statement waits for a connection of the main pool (and a new connection for its handshake). */
    acquireTimeoutMs: number;
    /** The watch's query unanswered this long: `/readyz` and the API answer 503 `database_unresponsive`. */
    unresponsiveAfterMs: number;
    /** `/readyz` answers 503 `database_unresponsive` once the watch (one query every 0.5 s) has waited this long. */
    readinessTimeoutMs: number;
    /** The database silent this long: `/healthz` fails too (0: never). */
    healthzAfterMs: number;
  };
  /** How far the host clock may be from the database's; beyond, `/readyz` says `clock_skew` (docs/operate/faults.md, "Clock skew"). */
  clock: { maxSkewMs: number };
  log: { level: LogLevel };
  /** null: `<dataDir>/master.key`, created on first start. WALLETD_MASTER_KEY overrides it. */
  masterKeyFile: string | null;
  /** The master key in a PKCS#11 token, and the previous key during a rotation (docs/operate/keys-and-hsms.md). */
  masterKey: MasterKeySettings;
  /** Keys held in a cloud KMS (treasury addresses with keyHeldIn "kms"): where the service is (docs/operate/keys-and-hsms.md). */
  signers: SignerSettings;
  rateLimit: { perIpPerMinute: number; writesPerKeyPerMinute: number };
  /** On an empty database, create a first company, owner and all-powerful API key. */
  bootstrap: boolean;
  console: ConsoleSettings;
  webhooks: WebhookSettings;
  indexer: IndexerSettings;
  approvals: ApprovalSettings;
  /** How long a new address-book entry waits before it can receive (issue 42 §7). */
  addressBook: { coolingOffMs: number };
  reconciliation: ReconciliationSettings;
  /**
   * With no chains configured, `serve` runs a local chain for each of `chains` and indexes it:
   * the modules of @walletd/devchains (`evm`, anvil, on `port`; the others adapters over real
   * engines, each on `ports[name]` or its fixed default port).
   */
  devnet: {
    enabled: boolean;
    port: number;
    chains: DevnetChain[];
    ports: Partial<Record<DevnetChain, number>>;
    /** The devnet's catch-all SMTP server on 127.0.0.1, used when `mail.smtp` is null (docs/guide/console.md, "Invitations by mail"). */
    mailPort: number;
  };
  /** Where invitation and reset links are mailed (docs/guide/console.md, "Invitations by mail"). */
  mail: MailSettings;
  /**
   * Chain plugin packages loaded by name (each exports `createPlugin()`): all seven built-in ones by
   * default, so every chain is served; naming some narrows the set.
   */
  plugins: string[];
  chains: ChainSettings[];
  /** Where the config came from, for messages. Not part of the file. */
  source: string;
}

export interface IndexerSettings {
  threads: number;
  /** `/readyz` is not ready while a chain's indexed height trails its head by more blocks than this. */
  maxLagBlocks: number;
  /**
   * `/readyz` is not ready when a chain's health record is older than this (or three of the chain's
   * poll intervals, if longer): the indexer following it is dead or stuck. At least 45 s, above the
   * 30 s a failing chain waits between rounds, so a failing chain reads as failing, not as stale.
   */
  healthMaxAgeMs: number;
  /**
   * `/readyz` is not ready (`stalled`) when a chain's last successful round or indexed block is
   * older than this (or three of its poll intervals, if longer): the round under way is stuck on a
   * node that hangs or trickles. Above the 15 s deadline of one node call by default.
   */
  stalledAfterMs: number;
  /** How long a stopped or unreachable indexer keeps its chains before a standby takes them. */
  leaseTtlMs: number;
  /** Heights a catching-up follower fetches and detects ahead of the one it writes (1 = one at a time). */
  pipelineDepth: number;
  /** Raw bytes of node answers a catch-up keeps in flight (estimated from recent block sizes): fewer heights when blocks are big. */
  pipelineBytes: number;
  /** Blocks smaller than this (raw bytes) are detected on the main thread, not handed to the pool (0: always the pool). */
  inlineDetectBytes: number;
}

/** What a withdrawal request's quorum does (issue 42 §6). */
export interface ApprovalSettings {
  /**
   * The default when no triggered `approval_above` policy names one: `send` signs and broadcasts
   * the approved withdrawal at once, `wait_for_send` waits for a person's Send in the console.
   */
  onApproval: 'send' | 'wait_for_send';
  /** An approved request whose withdrawal could not be prepared for want of funds expires this long after the first refusal. */
  fundsShortExpiryMs: number;
}

/** The indexer's comparison of indexed balances with the node's (docs/guide/reconciliation.md). */
export interface ReconciliationSettings {
  /** Between two runs per followed chain, in the chain's lease holder; 0 turns it off. */
  intervalMs: number;
  /** Addresses (account chains) or their wallets' addresses (pooled chains) one run reads at most; the next run goes on from there. */
  addressesPerRun: number;
  /** Balance reads per second one run sends the node at most. */
  nodeCallsPerSecond: number;
  /** Between two recomputations of the chain's balance ledger from history (docs/guide/withdrawals.md, "Reservations and the available balance"); 0 turns it off. */
  ledgerCheckIntervalMs: number;
  /** After the chain's first caught-up follow round, before the first run (not a whole interval). */
  firstRunDelayMs: number;
  /** A drift seen once is looked at again this long after, not a whole interval later (the second look that announces it). */
  confirmDelayMs: number;
  /** "Check now" (API, console): at most one per company this often, per process. */
  checkNowMinIntervalMs: number;
}

export interface WebhookSettings {
  /** Whole attempt: connect, headers and body. A receiver should answer 2xx at once. */
  timeoutMs: number;
  /** Ranges deliveries may reach although private/loopback (and over plain http). */
  allowCidrs: string[];
  batchSize: number;
  /** Requests in flight per dispatcher process. */
  concurrency: number;
  /**
   * Attempts in flight to one webhook, across every dispatcher process (held in the claim, in
   * PostgreSQL). Unset: a quarter of `concurrency` (at least 1), so one slow receiver holds a
   * small share of the slots and the rest go to the others.
   */
  maxInFlightPerWebhook?: number;
  /** How often a dispatcher looks for due retries when no notification wakes it. */
  pollIntervalMs: number;
  /** A claimed delivery is re-offered to other dispatchers after this long (a dead dispatcher's work). */
  leaseMs: number;
  /**
   * The first retry's wait; later ones double it, capped at 12 times it (5 s → 60 s). A test knob:
   * lowered, a test sees every retry of the real process in seconds.
   */
  retryBaseMs: number;
  telegramApiBase: string;
  /**
   * Delivery attempt rows final (delivered or failed) for longer than this many days are deleted by
   * the dispatcher, in small batches; 0 keeps them forever. Events are never pruned.
   */
  deliveryRetentionDays: number;
}

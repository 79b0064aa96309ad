import type { Command } from 'commander';
import { parseActionList, parsePublicKey } from '@walletd/core';
import { createApiKey, listApiKeys, parseDuration, revokeApiKey } from '../services/apiKeys';
import { createCompany, setEncryptionKey, setPlan } from '../services/companies';
import { listCompanies } from '../services/companyList';
import { withRuntime, type GlobalOptions } from './context';
import { aboutFile, readTextFile } from './fileWords';
import { registerMemberCommands } from './memberCommands';
import { intArg, printJson } from './output';
import { registerPolicyCommands } from './policyCommands';

function parseWalletList(text: string): number[] | null {
  if (text.trim() === '*') return null;
  return text.split(',').map((s) => intArg('--wallets')(s.trim()));
}

/** What a plan means for the company's API keys, on stderr (stdout stays the JSON). */
export function planNotice(companyId: number, plan: string): string {
  if (plan === 'none')
    return `note: company ${companyId} has plan none: every API call but GET /v1/me answers 402 plan_required until \`walletd admin plan set --company ${companyId} --plan free|paid\``;
  if (plan === 'free')
    return `note: company ${companyId} has plan free: test networks only, at most 5 wallets and 3 webhooks; \`walletd admin plan set --company ${companyId} --plan paid\` for mainnets`;
  return `note: company ${companyId} has plan ${plan}: every chain and network`;
}

/** `walletd admin ...`: the self-hosted stand-in for the spec's dashboard. */
export function registerAdmin(program: Command): void {
  const admin = program.command('admin').description('manage companies, members, API keys and plans (the dashboard stand-in)');
  const g = (cmd: Command) => cmd.optsWithGlobals() as GlobalOptions;

  const company = admin.command('company').description('companies');
  company
    .command('create')
    .description('create a company')
    .requiredOption('--name <name>', 'company name')
    .option('--plan <plan>', 'free (default: test networks, hard caps) | paid (everything) | none (the API answers 402)', 'free')
    .action(async (o, cmd) =>
      withRuntime(g(cmd), async ({ db }) => {
        const created = await createCompany(db, o);
        // Like a hosted service's sandbox: usable at once on test networks; mainnet is a deliberate step.
        process.stderr.write(`${planNotice(created.id, created.plan)}\n`);
        printJson(created);
      }),
    );

  company
    .command('list')
    .description('list every company with its plan and number of wallets (operator view, read-only)')
    .action(async (_o, cmd) => withRuntime(g(cmd), async ({ db }) => printJson(await listCompanies(db))));

  registerMemberCommands(admin);

  const key = admin.command('key').description('API keys');
  key
    .command('create')
    .description('create an API key; its secret is printed once')
    .requiredOption('--company <id>', 'company id', intArg('--company'))
    .requiredOption('--actions <list>', 'comma-separated actions, or * for all (see README#actions)')
    .requiredOption('--wallets <list>', 'comma-separated wallet ids, or * for every wallet including later ones')
    .option('--created-by <member>', "member the key acts for (default: the company's first owner)", intArg('--created-by'))
    .option('--allow-ip <cidrs>', 'comma-separated source IPs or CIDR ranges the key may be used from')
    .option('--expires-in <duration>', 'lifetime such as 30m, 12h, 90d or 2w (default: no expiry)')
    .option('--name <name>', 'a label to tell keys apart')
    .action(async (o, cmd) =>
      withRuntime(g(cmd), async ({ db }) => {
        const { key: secret, record } = await createApiKey(db, {
          companyId: o.company,
          createdBy: o.createdBy ?? null,
          name: o.name ?? null,
          actions: parseActionList(o.actions),
          walletIds: parseWalletList(o.wallets),
          allowIps: o.allowIp
            ? String(o.allowIp)
                .split(',')
                .map((s: string) => s.trim())
                .filter(Boolean)
            : null,
          expiresInMs: o.expiresIn ? parseDuration(o.expiresIn) : null,
        });
        printJson({ ...record, key: secret, note: 'the key is shown once; store it now' });
      }),
    );
  key
    .command('list')
    .description('list the API keys of a company (never their secrets)')
    .requiredOption('--company <id>', 'company id', intArg('--company'))
    .action(async (o, cmd) => withRuntime(g(cmd), async ({ db }) => printJson(await listApiKeys(db, o.company))));
  key
    .command('revoke')
    .description('revoke an API key at once')
    .argument('<id>', 'API key id', intArg('id'))
    .action(async (id: number, _o, cmd) => withRuntime(g(cmd), async ({ db }) => printJson(await revokeApiKey(db, id))));

  const plan = admin.command('plan').description("a company's plan");
  plan
    .command('set')
    .description('set the plan: none (402), free (test networks, hard caps) or paid')
    .requiredOption('--company <id>', 'company id', intArg('--company'))
    .requiredOption('--plan <plan>', 'none | free | paid')
    .action(async (o, cmd) =>
      withRuntime(g(cmd), async ({ db }) => {
        const updated = await setPlan(db, o.company, o.plan);
        process.stderr.write(`${planNotice(o.company, o.plan)}\n`);
        printJson(updated);
      }),
    );

  registerPolicyCommands(admin);

  const ek = admin.command('encryption-key').description("the company's encryption key for wallet secret exports");
  ek.command('set')
    .description('register the X25519 public key (PEM) that wallet secrets are sealed to (see walletd secret keygen)')
    .requiredOption('--company <id>', 'company id', intArg('--company'))
    .requiredOption('--public-key <file>', 'PEM file with the X25519 public key')
    .action(async (o, cmd) => {
      // Checked before the database is opened: a private key given by mistake goes nowhere.
      const pem = readTextFile(o.publicKey, 'the public key file');
      aboutFile(o.publicKey, 'the public key file', () => parsePublicKey(pem));
      await withRuntime(g(cmd), async ({ db }) => printJson(await setEncryptionKey(db, o.company, pem)));
    });
}

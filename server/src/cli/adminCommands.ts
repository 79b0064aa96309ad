import type { Command } from 'commander';
import { listApiKeys } from '../keys/apiKeys';
import { withKeyStatus } from '../keys/keyStatus';
import { createCompany, setPlan } from '../company/companies';
import { listCompanies } from '../company/companyList';
import { withRuntime, type GlobalOptions } from './context';
import { registerMemberCommands } from './memberCommands';
import { intArg, printJson } from './output';
import { registerPolicyCommands, removedCommand } from './policyCommands';

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

  const key = admin.command('key').description('API keys: list (read-only); members create and revoke them in the console');
  key
    .command('list')
    .description('list the API keys of a company (never their secrets)')
    .requiredOption('--company <id>', 'company id', intArg('--company'))
    .action(async (o, cmd) => withRuntime(g(cmd), async ({ db }) => printJson(await withKeyStatus(db, await listApiKeys(db, o.company)))));
  // A key acts for the member who made it; this shell authenticates nobody, so it could mint a key
  // in any member's name with no password, authenticator or step-up. Members do it in the console.
  for (const [verb, path] of [
    ['create', 'POST /console/api/keys'],
    ['revoke', 'POST /console/api/keys/ID/revoke'],
  ] as const) {
    key
      .command(verb, { hidden: true })
      .description(`removed: ${verb} API keys in the console (${path}), as the signed-in member`)
      .allowUnknownOption()
      .allowExcessArguments()
      .action(() => {
        process.stderr.write(
          `walletd admin key ${verb} was removed: the CLI authenticates nobody, so API keys are ${verb}d in the console's ` +
            `API keys page by the signed-in member${verb === 'create' ? ' with a fresh authenticator code' : ''} (${path}; see docs/guide/console.md)\n`,
        );
        process.exitCode = 2;
      });
  }

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
  // Whoever holds the matching private key opens every exported wallet secret: an owner sets it in
  // the console with a fresh authenticator code, audited; this shell authenticates nobody.
  removedCommand(
    ek,
    'set',
    "walletd admin encryption-key set was removed: the CLI authenticates nobody, so an owner registers the public key in the console's " +
      'Encryption key page (paste the PEM that `walletd secret keygen` wrote with --public-key), with a fresh authenticator code',
  );
}

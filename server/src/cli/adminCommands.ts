import type { Command } from 'commander';
import { listApiKeys } from '../services/apiKeys';
import { addMember, createCompany, listMembers, removeMember, setMemberRole, setPlan } from '../services/companies';
import { consoleLinkUrl } from '../console/consoleUrl';
import { inviteMember } from '../console/inviteMember';
import { listCompanies } from '../services/companyList';
import { withRuntime, type GlobalOptions } from './context';
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

  const member = admin.command('member').description('members of a company and their roles');
  member
    .command('add')
    .description('add a member')
    .requiredOption('--company <id>', 'company id', intArg('--company'))
    .requiredOption('--email <email>', 'email address')
    .requiredOption('--role <role>', 'owner | admin | developer | viewer')
    .action(async (o, cmd) =>
      withRuntime(g(cmd), async ({ db }) => printJson(await addMember(db, { companyId: o.company, email: o.email, role: o.role }))),
    );
  member
    .command('invite')
    .description('add a member (or take an existing one) and print a one-time link to set the console password')
    .requiredOption('--company <id>', 'company id', intArg('--company'))
    .requiredOption('--email <email>', 'email address')
    .requiredOption('--role <role>', 'owner | admin | developer | viewer')
    .action(async (o, cmd) =>
      withRuntime(g(cmd), async ({ db }, config) => {
        const inv = await inviteMember(db, { companyId: o.company, email: o.email, role: o.role }, Date.now(), config.console.linkTtlMs);
        // No mail transport yet: the operator hands the link over, as a URL on the configured console.
        const url = consoleLinkUrl(config.console.host, config.console.port, inv.token);
        process.stderr.write(`one-time ${inv.purpose} link for ${inv.email}: ${url}\n`);
        printJson({ ...inv, url, note: 'the link works once and expires; it is shown only now' });
      }),
    );
  member
    .command('set-role')
    .description("change a member's role (caps what the member's API keys can do)")
    .requiredOption('--member <id>', 'member id', intArg('--member'))
    .requiredOption('--role <role>', 'owner | admin | developer | viewer')
    .action(async (o, cmd) => withRuntime(g(cmd), async ({ db }) => printJson(await setMemberRole(db, o.member, o.role))));
  member
    .command('remove')
    .description('remove a member (their API keys lose every action but /v1/me)')
    .requiredOption('--member <id>', 'member id', intArg('--member'))
    .action(async (o, cmd) => withRuntime(g(cmd), async ({ db }) => printJson(await removeMember(db, o.member))));
  member
    .command('list')
    .description('list the members of a company')
    .requiredOption('--company <id>', 'company id', intArg('--company'))
    .action(async (o, cmd) => withRuntime(g(cmd), async ({ db }) => printJson(await listMembers(db, o.company))));

  const key = admin.command('key').description('API keys: list (read-only); members create and revoke them in the console');
  key
    .command('list')
    .description('list the API keys of a company (never their secrets)')
    .requiredOption('--company <id>', 'company id', intArg('--company'))
    .action(async (o, cmd) => withRuntime(g(cmd), async ({ db }) => printJson(await listApiKeys(db, o.company))));
  // A key acts for the member who made it; this shell authenticates nobody, so it could mint a key
  // in any member's name with no password, authenticator or step-up. Members do it in the console.
  for (const [verb, path] of [
    ['create', 'POST /console/api/keys'],
    ['revoke', 'POST /console/api/keys/ID/revoke'],
  ] as const) {
    key
      .command(verb)
      .description(`removed: ${verb} API keys in the console (${path}), as the signed-in member`)
      .allowUnknownOption()
      .allowExcessArguments()
      .action(() => {
        process.stderr.write(
          `walletd admin key ${verb} was removed: the CLI authenticates nobody, so API keys are ${verb}d in the console's ` +
            `API keys page by the signed-in member${verb === 'create' ? ' with a fresh authenticator code' : ''} (${path}; see the README's Console section)\n`,
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

import type { Command } from 'commander';
import { loadPolicies } from '../withdrawals/policies/policies';
import { toRequestView } from '../withdrawals/requests/requestView';
import { listRequests, prepareApprovedRequest } from '../withdrawals/requests/requests';
import { type GlobalOptions, withCommon, withRuntime } from './context';
import { intArg, printJson } from './output';
import { policyForDisplay } from '../withdrawals/policies/policyAsset';

/** A command that was removed in favour of the console: it says where to go and exits 2 (a usage error). */
export function removedCommand(parent: Command, name: string, words: string): void {
  // Hidden from --help (issue 47 §5): it runs only to tell someone following an old guide where the action went.
  parent
    .command(name, { hidden: true })
    .description(`removed: ${name} in the console`)
    .allowUnknownOption()
    .allowExcessArguments()
    .action(() => {
      process.stderr.write(`${words}\n`);
      process.exitCode = 2;
    });
}

/** `walletd admin policy …` and `walletd admin request …`: spending policies and approvals. */
export function registerPolicyCommands(admin: Command): void {
  const g = (cmd: Command) => cmd.optsWithGlobals() as GlobalOptions;

  const policy = admin.command('policy').description('spending policies (evaluated in a fixed order, see docs/guide/policies.md)');
  policy
    .command('list')
    .description("list a company's policies")
    .requiredOption('--company <id>', 'company id', intArg('--company'))
    .action(async (o, cmd) =>
      withCommon(g(cmd), async ({ db, config, plugins }) =>
        printJson((await loadPolicies(db, o.company)).map((p) => policyForDisplay(config, plugins, p))),
      ),
    );
  // Policies decide who must sign off on money leaving: an owner or admin changes them in the
  // console, signed in with a fresh authenticator code and audited; this shell authenticates
  // nobody, so it only lists them.
  for (const name of ['add', 'enable', 'disable', 'remove'] as const) {
    removedCommand(
      policy,
      name,
      `walletd admin policy ${name} was removed: the CLI authenticates nobody, so an owner or admin changes spending policies ` +
        "in the console's Policies page, with a fresh authenticator code (see docs/guide/console.md); " +
        '`walletd admin policy list` still lists them',
    );
  }
  const request = admin
    .command('request')
    .description('withdrawal requests: list, prepare an approved one again (members vote in the console)');
  request
    .command('list')
    .description("a company's withdrawal requests, newest first")
    .requiredOption('--company <id>', 'company id', intArg('--company'))
    .option('--status <status>', 'pending | approved | rejected')
    .action(async (o, cmd) =>
      withRuntime(g(cmd), async ({ db }) =>
        printJson(await Promise.all((await listRequests(db, o.company, null, o.status)).map((r) => toRequestView(db, r)))),
      ),
    );
  // Votes are a person's, cast in the console with their password, TOTP and a step-up; this shell
  // authenticates nobody (an operator could sign off as every member), so it no longer votes.
  for (const vote of ['approve', 'reject'] as const) {
    removedCommand(
      request,
      vote,
      `walletd admin request ${vote} was removed: the CLI authenticates nobody, so votes are cast in the console by the ` +
        `signed-in member with a fresh authenticator code (POST /console/api/requests/ID/${vote}; see docs/guide/console.md)`,
    );
  }
  request
    .command('prepare')
    .description('prepare the withdrawal of an approved request again (after a node or funds failure)')
    .argument('<id>', 'request id', intArg('id'))
    .action(async (id: number, _o, cmd) => withCommon(g(cmd), async (common) => printJson(await prepareApprovedRequest(common, id))));
}

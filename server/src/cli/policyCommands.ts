import type { Command } from 'commander';
import { BaseError, toBaseUnits } from '@walletd/core';
import { addPolicy, loadPolicies, removePolicy, setPolicyEnabled } from '../services/policies';
import { resolvePolicyAddresses } from '../services/policyAddresses';
import { toRequestView } from '../services/withdrawals/requestView';
import { listRequests, prepareApprovedRequest } from '../services/withdrawals/requests';
import { type GlobalOptions, withCommon, withRuntime } from './context';
import { intArg, printJson } from './output';
import { policyForDisplay, resolvePolicyAsset } from './policyAsset';

const list = (text: string | undefined) =>
  text === undefined
    ? undefined
    : text
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);

/** `--addresses a,b`: split on commas only; each is checked as the API checks an address (exactly, never trimmed). */
const addressList = (text: string | undefined) => (text === undefined ? undefined : text.split(',').filter((s) => s !== ''));

/** `walletd admin policy …` and `walletd admin request …`: spending policies and approvals. */
export function registerPolicyCommands(admin: Command): void {
  const g = (cmd: Command) => cmd.optsWithGlobals() as GlobalOptions;

  const policy = admin.command('policy').description('spending policies (evaluated in a fixed order, see README#spending-policies)');
  policy
    .command('add')
    .description('add a policy')
    .requiredOption('--company <id>', 'company id', intArg('--company'))
    .requiredOption('--name <name>', 'shown in refusals')
    .requiredOption('--kind <kind>', 'deny_destinations | allow_destinations | max_per_transaction | daily_volume | approval_above')
    .option('--addresses <list>', 'comma-separated destinations (deny/allow lists)')
    .option('--asset <asset>', 'asset key or symbol, as the API takes it (e.g. ethereum:mainnet:eth, USDC); required for amount kinds')
    .option('--chain <chain>', 'chain the addresses (and an asset symbol) belong to, e.g. ethereum, bitcoin')
    .option('--network <network>', 'network within --chain, e.g. mainnet')
    .option('--max <decimal>', 'maximum in display units (max_per_transaction, daily_volume)')
    .option('--threshold <decimal>', 'amount at or above which approval is needed (approval_above)')
    .option('--approvals <n>', 'sign-offs needed (approval_above, default 1)', intArg('--approvals'))
    .option('--wallets <list>', 'comma-separated wallet ids (default: every wallet)')
    .action(async (o, cmd) =>
      withCommon(g(cmd), async ({ db, config, plugins }) => {
        if (o.network !== undefined && o.chain === undefined) throw new BaseError('validation_failed', '--network needs --chain');
        const scope = { ...(o.chain ? { chain: String(o.chain) } : {}), ...(o.network ? { network: String(o.network) } : {}) };
        const asset = o.asset ? resolvePolicyAsset(config, plugins, String(o.asset), scope) : null;
        const amount = (text: string | undefined) => {
          if (text === undefined) return undefined;
          if (!asset) throw new BaseError('validation_failed', 'amounts need --asset (they are read in its display units)');
          return toBaseUnits(text, asset.decimals);
        };
        const given = addressList(o.addresses);
        // Addresses are checked on the asset's chain when the policy has one, else on --chain, else on any chain.
        const [assetChain, assetNetwork] = asset ? asset.key.split(':') : [];
        const destinations = given?.length
          ? resolvePolicyAddresses(plugins, given, asset ? { chain: assetChain, network: assetNetwork } : scope)
          : undefined;
        const added = await addPolicy(db, {
          companyId: o.company,
          name: o.name,
          kind: o.kind,
          walletIds: list(o.wallets)?.map((w) => intArg('--wallets')(w)) ?? null,
          assetKey: asset?.key ?? null,
          ...(destinations ?? {}),
          max: amount(o.max),
          threshold: amount(o.threshold),
          approvals: o.approvals,
        });
        printJson(policyForDisplay(config, plugins, added));
      }),
    );
  policy
    .command('list')
    .description("list a company's policies")
    .requiredOption('--company <id>', 'company id', intArg('--company'))
    .action(async (o, cmd) =>
      withCommon(g(cmd), async ({ db, config, plugins }) =>
        printJson((await loadPolicies(db, o.company)).map((p) => policyForDisplay(config, plugins, p))),
      ),
    );
  for (const [name, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    policy
      .command(name)
      .description(`${name} a policy`)
      .argument('<id>', 'policy id', intArg('id'))
      .action(async (id: number, _o, cmd) =>
        withCommon(g(cmd), async ({ db, config, plugins }) =>
          printJson(policyForDisplay(config, plugins, await setPolicyEnabled(db, id, enabled))),
        ),
      );
  }
  policy
    .command('remove')
    .description('delete a policy')
    .argument('<id>', 'policy id', intArg('id'))
    .action(async (id: number, _o, cmd) => withRuntime(g(cmd), async ({ db }) => printJson(await removePolicy(db, id))));

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
    request
      .command(vote)
      .description(`removed: ${vote} in the console (/console/api/requests/ID/${vote}), as the signed-in member`)
      .allowUnknownOption()
      .allowExcessArguments()
      .action(() => {
        process.stderr.write(
          `walletd admin request ${vote} was removed: the CLI authenticates nobody, so votes are cast in the console by the ` +
            `signed-in member with a fresh authenticator code (POST /console/api/requests/ID/${vote}; see the README's Console section)\n`,
        );
        process.exitCode = 2;
      });
  }
  request
    .command('prepare')
    .description('prepare the withdrawal of an approved request again (after a node or funds failure)')
    .argument('<id>', 'request id', intArg('id'))
    .action(async (id: number, _o, cmd) => withCommon(g(cmd), async (common) => printJson(await prepareApprovedRequest(common, id))));
}

import type { Command } from 'commander';
import { consoleLinkUrl } from '../members/links/consoleUrl';
import { operatorInvite, operatorInviteRefusal } from '../members/links/operatorInvite';
import { createLogger } from '@walletd/core';
import { deliverLink } from '../members/links/deliverLink';
import { createMailer } from '../members/links/mailer';
import { getCompany, listMembers } from '../company/companies';
import { type GlobalOptions, withRuntime } from './context';
import { intArg, printJson } from './output';

const g = (cmd: Command) => cmd.optsWithGlobals() as GlobalOptions;

/**
 * `walletd admin member ...`: listing, and the operator's bootstrap of a company's owner. Adding,
 * promoting and removing people are decisions of a signed-in owner or admin in the console (with a
 * step-up); this shell authenticates nobody, so those commands exit 2 and say where to go.
 */
export function registerMemberCommands(admin: Command): void {
  const member = admin.command('member').description('members of a company: list, and the first owner (people are managed in the console)');
  member
    .command('invite')
    .description("operator only: a one-time link for the company's owner while no owner can sign in (password and MFA not both set)")
    .requiredOption('--company <id>', 'company id', intArg('--company'))
    .requiredOption('--email <email>', 'email address')
    .option('--role <role>', 'owner (the only role the CLI invites)', 'owner')
    .action(async (o, cmd) =>
      withRuntime(g(cmd), async ({ db }, config) => {
        const refusal = await operatorInviteRefusal(db, o.company, o.email, o.role);
        if (refusal) {
          process.stderr.write(`walletd admin member invite refused: ${refusal}\n`);
          process.exitCode = 2;
          return;
        }
        const inv = await operatorInvite(db, o.company, o.email, Date.now(), config.console.linkTtlMs);
        // Mailed to the owner when a transport is configured; else the operator hands the link over.
        const url = consoleLinkUrl(config.console.host, config.console.port, inv.token);
        const mailer = createMailer(config.mail, createLogger({ level: 'warn' }));
        const answer = await deliverLink(mailer, inv, url, (await getCompany(db, o.company)).name).finally(() => mailer?.close());
        if ('mailedTo' in answer) {
          const { token: _token, path: _path, ...member } = inv;
          process.stderr.write(`one-time ${inv.purpose} link mailed to ${inv.email}\n`);
          printJson({ ...member, ...answer });
        } else {
          process.stderr.write(`warning: ${answer.warning}\none-time ${inv.purpose} link for ${inv.email}: ${url}\n`);
          printJson({ ...inv, ...answer });
        }
      }),
    );
  member
    .command('list')
    .description('list the members of a company (read-only)')
    .requiredOption('--company <id>', 'company id', intArg('--company'))
    .action(async (o, cmd) => withRuntime(g(cmd), async ({ db }) => printJson(await listMembers(db, o.company))));

  const removed: [string, string][] = [
    ['add', 'invite the member in the console (Members page), as an owner or admin with a fresh authenticator code'],
    ['set-role', "change the member's role in the console (Members page); promotions ask for a fresh authenticator code"],
    ['remove', 'remove the member in the console (Members page); their sessions end at once'],
  ];
  for (const [name, instead] of removed) {
    member
      .command(name, { hidden: true })
      .description(`removed: ${instead}`)
      .allowUnknownOption()
      .allowExcessArguments()
      .action(() => {
        process.stderr.write(
          `walletd admin member ${name} was removed: the CLI authenticates nobody, so ${instead} (see docs/guide/console.md)\n`,
        );
        process.exitCode = 2;
      });
  }
}

import { readFileSync } from 'node:fs';
import { BaseError, type Logger, type MailSettings } from '@walletd/core';
import type { Transporter } from 'nodemailer';

/** One message to one person; the body is plain text (a link, and what it is for). */
export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
  close(): void;
}

/** The relay's password: `WALLETD_SMTP_PASSWORD`, else the file `mail.smtp.passwordFile` names, else none. */
function smtpPassword(smtp: NonNullable<MailSettings['smtp']>, env: NodeJS.ProcessEnv): string | undefined {
  if (env.WALLETD_SMTP_PASSWORD) return env.WALLETD_SMTP_PASSWORD;
  if (smtp.passwordFile) return readFileSync(smtp.passwordFile, 'utf8').trim();
  return undefined;
}

/**
 * The configured SMTP transport (nodemailer), or null when `mail.smtp` is null. A failed send is
 * a 503 `unavailable` toward the inviter that names the relay, never its password or the link
 * (nodemailer's own message can quote the SMTP dialogue, so it is only logged, without the body).
 */
export function createMailer(settings: MailSettings, logger: Logger, env: NodeJS.ProcessEnv = process.env): Mailer | null {
  const smtp = settings.smtp;
  if (!smtp) return null;
  const pass = smtpPassword(smtp, env);
  // Made on the first send, nodemailer required then: 2.8 MB of heap every process of a deployment
  // with a relay carried, though mail goes out only for invitations and resets (lazyModules.test).
  let transport: Transporter | undefined;
  const open = (): Transporter =>
    (transport ??= (require('nodemailer') as typeof import('nodemailer')).createTransport({
      host: smtp.host,
      port: smtp.port,
      secure: smtp.secure ?? smtp.port === 465,
      ...(smtp.user ? { auth: { user: smtp.user, pass } } : {}),
    }));
  return {
    async send(mail) {
      try {
        await open().sendMail({ from: settings.from, to: mail.to, subject: mail.subject, text: mail.text });
      } catch (e) {
        logger.warn({ to: mail.to, relay: `${smtp.host}:${smtp.port}`, code: (e as { code?: string }).code }, 'mail not sent');
        throw new BaseError('unavailable', `the mail to ${mail.to} could not be sent through ${smtp.host}:${smtp.port}; try again`);
      }
    },
    close: () => transport?.close(),
  };
}

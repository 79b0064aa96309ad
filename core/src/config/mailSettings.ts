export interface MailSettings {
  /**
   * The SMTP relay, sent through nodemailer; null: no transport (the links are shown to whoever
   * issued them, with a warning). The password is `WALLETD_SMTP_PASSWORD` or the file named by
   * `passwordFile`, never the config file itself.
   */
  smtp: { host: string; port: number; secure: boolean; user: string | null; passwordFile: string | null } | null;
  /** The sender, e.g. `"walletd <walletd@example.com>"`. */
  from: string;
}

/**
 * What the first start prints on stdout (never the log stream): the API key and the owner's one-time
 * console link, each shown once.
 */
export function bootstrapBanner(key: string, apiPort: number, ownerLink: string, consoleServed: boolean): string {
  const line = '─'.repeat(72);
  return [
    line,
    'walletd: first start on an empty database. Created a company ("My company", plan paid),',
    'its owner owner@localhost, and an API key with every action on every wallet.',
    '',
    `  API key (shown once, store it now): ${key}`,
    '',
    `  curl -s -H "Authorization: Bearer ${key}" http://localhost:${apiPort}/v1/me`,
    '',
    '  Owner console link (works once): set the password for owner@localhost, then MFA:',
    `  ${ownerLink}`,
    // A process without the console role still prints the link: a console process serves it.
    ...(consoleServed ? [] : ['  (this process does not run the console: open it where `serve --roles console` runs)']),
    line,
    '',
  ].join('\n');
}

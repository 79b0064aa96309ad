import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const TON_FIXTURES = join(__dirname, '..', '..', 'fixtures', 'ton');
export const tonFixture = (name: string) => JSON.parse(readFileSync(join(TON_FIXTURES, name), 'utf8'));

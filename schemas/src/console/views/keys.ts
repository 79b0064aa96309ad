/** The API keys page's answers (`/console/api/keys`). Types only (see ../views.ts). */
import type { ConsoleApiKey, KeyActionChoice } from '../views';

/** The keys list: the keys, the actions a key can be granted, and whether this member may create one. */
export interface ConsoleKeyList {
  data: ConsoleApiKey[];
  actions: KeyActionChoice[];
  mayCreate: boolean;
}

/** The answer to a create: the secret, here and nowhere else. */
export interface ConsoleCreatedKey {
  key: string;
  record: ConsoleApiKey;
  note: string;
}
